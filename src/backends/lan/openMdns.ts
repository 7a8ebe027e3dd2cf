import { createSocket, type RemoteInfo } from 'node:dgram';
import makeMdns from 'multicast-dns';
import type { MulticastDNS, QueryOutgoingPacket, ResponseOutgoingPacket } from 'multicast-dns';
import { implausibleHeader } from './implausibleHeader.js';
import { LanSocketError } from './LanSocketError.js';

/** An open mDNS socket, as {@link openMdns} returns it. */
export interface MdnsSocket {
  /** The multicast-dns instance: listen to its `query` / `response` events. */
  readonly mdns: MulticastDNS;
  /** Resolves once the socket is bound and has joined the group; rejects with a {@link LanSocketError}. */
  readonly ready: Promise<void>;
  /** Sends a query; rejects with a {@link LanSocketError}. */
  query(packet: QueryOutgoingPacket): Promise<void>;
  /** Sends a response; rejects with a {@link LanSocketError}. */
  respond(packet: ResponseOutgoingPacket): Promise<void>;
  /** Sends an encoded response to the group; rejects with a {@link LanSocketError}. */
  respondEncoded(message: Buffer): Promise<void>;
  /** Closes the socket (idempotent); no callback runs afterwards. */
  close(): Promise<void>;
}

/** Where {@link openMdns} reports what it cannot throw. */
export interface MdnsListeners {
  /** The socket is unusable (bind failed, interface gone). Called at most once. */
  fatal(error: LanSocketError): void;
  /** Something to report that does not stop the socket (a group it could not join, an undecodable packet). */
  warning(message: string, error: unknown): void;
  /**
   * A received packet did not decode as DNS (also reported as a warning).
   * A record sent meanwhile may have been lost with it (a flood of such
   * packets can fill the receive buffer): a browser asks again.
   */
  undecodable?(): void;
}

/** The mDNS IPv4 group (RFC 6762 §3). */
const GROUP = '224.0.0.251';
/** Receive buffer asked for (the kernel caps it at net.core.rmem_max). */
const RECEIVE_BUFFER = 1 << 20;

/** Send errors meaning no interface can carry the multicast packet. */
const NO_MULTICAST_ROUTE = new Set(['ENETUNREACH', 'EHOSTUNREACH', 'ENODEV', 'EADDRNOTAVAIL']);

const NO_MULTICAST_HINT = 'is an interface up, with MULTICAST, and a route for 224.0.0.0/4?';

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Opens a multicast-dns socket (port 5353, group 224.0.0.251, loopback on)
 * with every failure routed to `listeners`, never thrown: an `error` event
 * is fatal, a `warning` is reported, sends reject with a {@link LanSocketError}.
 *
 * No usable multicast interface (a send fails for want of a route:
 * `ENETUNREACH`, ...) is reported as a warning saying so, then as fatal.
 *
 * @param namespace For error messages.
 * @param options Interface address and port.
 * @param listeners Failure callbacks.
 */
export function openMdns(
  namespace: string,
  options: { readonly interface?: string | undefined; readonly port?: number | undefined },
  listeners: MdnsListeners,
): MdnsSocket {
  let closed = false;
  let failed: LanSocketError | undefined;
  let closing: Promise<void> | undefined;
  const fail = (what: string, cause: unknown): LanSocketError => {
    const error = cause instanceof LanSocketError ? cause : new LanSocketError(namespace, what, cause);
    if (failed === undefined && !closed) {
      failed = error;
      const code = (cause as NodeJS.ErrnoException | undefined)?.code;
      if (code !== undefined && NO_MULTICAST_ROUTE.has(code)) {
        listeners.warning(`no usable multicast interface: ${what} failed with ${code} (${NO_MULTICAST_HINT})`, error);
      }
      listeners.fatal(error);
    }
    return error;
  };

  // Our own socket, to give it a larger receive buffer once bound: a burst of
  // announcements (hundreds of workers) must not overflow the default one
  // while the process is busy.
  const udp = createSocket({ type: 'udp4', reuseAddr: true });
  udp.once('listening', () => {
    try {
      udp.setRecvBufferSize(RECEIVE_BUFFER);
    } catch {
      // Capped or refused by the system: keep the default.
    }
  });
  const port = options.port ?? 5353;
  const mdns = makeMdns({
    socket: udp,
    port,
    ...(options.interface === undefined ? {} : { interface: options.interface }),
    reuseAddr: true,
    loopback: true,
  });
  // An EventEmitter 'error' without a listener throws: keep one for the socket's whole life.
  mdns.on('error', (error: unknown) => {
    if (!closed) fail('binding the mDNS socket', error);
  });
  // multicast-dns decodes in its own 'message' listener and warns when that
  // fails. That listener is called from here, and only for a datagram whose
  // header can be a DNS message's (see implausibleHeader: the decoder's cost
  // is then bounded by the datagram's size); a warning raised while it runs
  // comes from decoding the packet.
  const decoders = udp.listeners('message') as ((message: Buffer, rinfo: RemoteInfo) => void)[];
  udp.removeAllListeners('message');
  let decoding = false;
  const undecodable = (why: string, error: unknown): void => {
    listeners.warning(`mDNS socket warning: ${why}`, error);
    listeners.undecodable?.();
  };
  udp.on('message', (message: Buffer, rinfo: RemoteInfo) => {
    if (closed) return;
    const implausible = implausibleHeader(message);
    if (implausible !== undefined) {
      undecodable(`skipped an undecodable packet from ${rinfo.address}: ${implausible}`, new RangeError(implausible));
      return;
    }
    decoding = true;
    try {
      for (const decode of decoders) decode.call(udp, message, rinfo);
    } finally {
      decoding = false;
    }
  });
  mdns.on('warning', (error: unknown) => {
    if (closed) return;
    if (decoding) undecodable(errorText(error), error);
    else listeners.warning(`mDNS socket warning: ${errorText(error)}`, error);
  });

  const ready = new Promise<void>((resolve, reject) => {
    mdns.once('ready', () => resolve());
    mdns.once('error', (error: unknown) => reject(fail('binding the mDNS socket', error)));
  });
  // Nobody may be waiting for `ready` (a failure is also reported to `fatal`).
  ready.catch(() => undefined);

  const send = async (what: string, write: (done: (error: Error | null) => void) => void): Promise<void> => {
    await ready;
    if (failed !== undefined) throw failed;
    if (closed) return;
    await new Promise<void>((resolve, reject) => {
      const done = (error: Error | null): void => {
        if (error === null || error === undefined || closed) resolve();
        else reject(fail(what, error));
      };
      try {
        write(done);
      } catch (error) {
        reject(fail(what, error));
      }
    });
  };

  return {
    mdns,
    ready,
    query: (packet) => send('sending an mDNS query', (done) => mdns.query(packet, done)),
    respond: (packet) => send('sending an mDNS response', (done) => mdns.respond(packet, done)),
    // The socket multicast-dns sends on, with the group and port it sends to.
    respondEncoded: (message) =>
      send('sending an mDNS response', (done) =>
        udp.send(message, 0, message.length, port, GROUP, (error) => done(error ?? null)),
      ),
    close: () => {
      if (closing !== undefined) return closing;
      closed = true;
      closing = new Promise<void>((resolve) => {
        try {
          mdns.destroy(() => resolve());
        } catch {
          resolve();
        }
      });
      return closing;
    },
  };
}
