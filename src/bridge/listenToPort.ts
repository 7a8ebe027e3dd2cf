import type { BridgeMessage, BridgePort } from './types.js';

type Listener = (value: unknown) => void;
type Subscribe = (type: string, listener: Listener) => unknown;

/** The port's listening methods, called on the port itself. */
interface LoosePort {
  on?: Subscribe;
  off?: Subscribe;
  removeListener?: Subscribe;
  addEventListener?: Subscribe;
  removeEventListener?: Subscribe;
  onmessage?: Listener | null | undefined;
}

function bridgeMessage(value: unknown, channel: string): BridgeMessage | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const record = value as { woolrxBridge?: unknown; data?: unknown };
  if (record.woolrxBridge === channel) return value as BridgeMessage;
  // An event (DOM, Electron's MessagePortMain) rather than the message itself (node's MessagePort.on).
  if (
    record.data !== null &&
    typeof record.data === 'object' &&
    (record.data as { woolrxBridge?: unknown }).woolrxBridge === channel
  ) {
    return record.data as BridgeMessage;
  }
  return undefined;
}

/**
 * Listens to the bridge messages of one channel on a port, and to its
 * closing where it reports one; returns the function that stops listening.
 * @internal
 *
 * @param channel The channel name.
 * @param onMessage Called with each message of the channel.
 * @param onClose Called once when the port closes.
 * @returns Stops listening.
 */
export function listenToPort(
  port: BridgePort,
  channel: string,
  onMessage: (message: BridgeMessage) => void,
  onClose: () => void,
): () => void {
  const message: Listener = (value) => {
    const parsed = bridgeMessage(value, channel);
    if (parsed !== undefined) onMessage(parsed);
  };
  let closed = false;
  const close: Listener = () => {
    if (closed) return;
    closed = true;
    onClose();
  };
  const loose = port as unknown as LoosePort;
  let stop: () => void;
  if (typeof loose.on === 'function') {
    loose.on('message', message);
    loose.on('close', close);
    const off = typeof loose.off === 'function' ? 'off' : 'removeListener';
    stop = () => {
      loose[off]?.('message', message);
      loose[off]?.('close', close);
    };
  } else if (typeof loose.addEventListener === 'function') {
    loose.addEventListener('message', message);
    loose.addEventListener('close', close);
    stop = () => {
      loose.removeEventListener?.('message', message);
      loose.removeEventListener?.('close', close);
    };
  } else {
    const previous = loose.onmessage;
    loose.onmessage = message;
    stop = () => {
      if (loose.onmessage === message) loose.onmessage = previous;
    };
  }
  port.start?.();
  return () => {
    closed = true;
    stop();
  };
}
