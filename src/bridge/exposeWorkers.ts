import { Subscription } from 'rxjs';
import type { Observable } from 'rxjs';
import type { DiscoveryEvent } from '../events/types.js';
import { describeValue } from '../model/describeValue.js';
import { assertBridgePort } from './assertBridgePort.js';
import { BridgeClosedError } from './BridgeClosedError.js';
import { listenToPort } from './listenToPort.js';
import type { BridgeErrorPayload, BridgeMessage, BridgeOptions, BridgePort } from './types.js';
import { workerPayload } from './workerPayload.js';

/**
 * An error as plain data for the port: `{ name, message, code? }`
 * (anything thrown, not only `Error`s). @internal
 *
 * @param error What the upstream sent down its error channel.
 * @returns The payload.
 */
function errorPayload(error: unknown): BridgeErrorPayload {
  if (error instanceof Error) {
    const { code } = error as { code?: unknown };
    return {
      name: error.name,
      message: error.message,
      ...(typeof code === 'string' || typeof code === 'number' ? { code } : {}),
    };
  }
  let message: string;
  try {
    message = typeof error === 'string' ? error : (JSON.stringify(error) ?? String(error));
  } catch {
    message = Object.prototype.toString.call(error);
  }
  return { name: 'Error', message };
}

/**
 * Serves a stream of worker events over a MessagePort-like channel to
 * {@link workersFrom} on the other side (an Electron renderer, a worker
 * thread, an iframe). Every `subscribe` request from the other side gets
 * its own subscription to `events$` (so a cold source stays cold per
 * subscriber); its events, its error (as `{ name, message, code }`) and its
 * completion are posted back as plain data; a `release` unsubscribes it.
 * When the port closes, every upstream subscription is released.
 * Unsubscribing the returned subscription stops serving: upstreams are
 * released and the other side's subscriptions error with
 * `BridgeClosedError`.
 *
 * ```text
 * events$ (per request):  --a--b--c--|
 * over the port:          --a--b--c--|   (to the requester only)
 * ```
 *
 * @example
 * // Electron main process
 * const { port1, port2 } = new MessageChannelMain();
 * const exposure = exposeWorkers(localDiscovery('pool').events(), port1);
 * win.webContents.postMessage('woolrx-port', null, [port2]);
 * win.on('closed', () => exposure.unsubscribe());
 *
 * @param events$ The stream to serve (subscribed once per request).
 * @param port The owning side's end of the channel.
 * @param options `channel`: the bridge's name on the port (default `'woolrx'`).
 * @returns A subscription that stops serving.
 * @throws {TypeError} Naming a bad source, port or channel.
 */
export function exposeWorkers(
  events$: Observable<DiscoveryEvent>,
  port: BridgePort,
  options: BridgeOptions = {},
): Subscription {
  if (events$ === null || typeof events$ !== 'object' || typeof events$.subscribe !== 'function') {
    throw new TypeError(`Invalid exposeWorkers source: ${describeValue(events$)} (expected an Observable)`);
  }
  assertBridgePort(port, 'exposeWorkers');
  const channel = options.channel ?? 'woolrx';
  if (typeof channel !== 'string' || channel === '') {
    throw new TypeError(`Invalid exposeWorkers channel: ${describeValue(channel)} (expected a non-empty string)`);
  }
  const upstreams = new Map<string, Subscription>();
  const post = (message: BridgeMessage): void => {
    try {
      port.postMessage(message);
    } catch {
      // A port closed under us: its close event (if any) releases everything.
    }
  };

  const onMessage = (message: BridgeMessage): void => {
    if (message.kind === 'release') {
      upstreams.get(message.id)?.unsubscribe();
      upstreams.delete(message.id);
      return;
    }
    if (message.kind !== 'subscribe' || typeof message.id !== 'string' || upstreams.has(message.id)) return;
    const { id } = message;
    const upstream = new Subscription();
    upstreams.set(id, upstream);
    upstream.add(
      events$.subscribe({
        next: (event) => {
          if (upstreams.get(id) !== upstream) return;
          post({ woolrxBridge: channel, kind: 'next', id, type: event.type, worker: workerPayload(event.worker) });
        },
        error: (error: unknown) => {
          if (upstreams.get(id) !== upstream) return;
          upstreams.delete(id);
          post({ woolrxBridge: channel, kind: 'error', id, error: errorPayload(error) });
          upstream.unsubscribe();
        },
        complete: () => {
          if (upstreams.get(id) !== upstream) return;
          upstreams.delete(id);
          post({ woolrxBridge: channel, kind: 'complete', id });
          upstream.unsubscribe();
        },
      }),
    );
    if (upstreams.get(id) !== upstream) upstream.unsubscribe();
  };

  const releaseAll = (): void => {
    const all = [...upstreams.values()];
    upstreams.clear();
    for (const upstream of all) upstream.unsubscribe();
  };
  const stopListening = listenToPort(port, channel, onMessage, releaseAll);

  return new Subscription(() => {
    stopListening();
    const ids = [...upstreams.keys()];
    releaseAll();
    const error = errorPayload(new BridgeClosedError('the owning side stopped exposing its workers'));
    for (const id of ids) post({ woolrxBridge: channel, kind: 'error', id, error });
  });
}
