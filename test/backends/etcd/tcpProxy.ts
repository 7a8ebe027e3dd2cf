/**
 * A loopback TCP proxy a test can cut and restore, to break a client's
 * connections to one etcd member without touching the server (the others
 * keep writing meanwhile).
 */
import { createServer, connect, type Server, type Socket } from 'node:net';

/** A running proxy. */
export interface TcpProxy {
  /** The port clients connect to. */
  readonly port: number;
  /** `http://127.0.0.1:<port>` (`http://[::1]:<port>` on IPv6 loopback). */
  readonly endpoint: string;
  /** Number of client connections accepted so far. */
  readonly accepted: number;
  /** Destroys every open connection and refuses new ones until {@link TcpProxy.restore}. */
  cut(): void;
  /** Accepts and forwards connections again. */
  restore(): void;
  /** Closes the proxy and every connection. */
  close(): Promise<void>;
}

/**
 * Starts a proxy from a free loopback port to `127.0.0.1:targetPort`.
 * @param targetPort Where to forward.
 * @param host The loopback address to listen on (`::1` for IPv6).
 * @returns The proxy.
 */
export function startTcpProxy(targetPort: number, host = '127.0.0.1'): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  let open = true;
  let accepted = 0;
  const server: Server = createServer((client) => {
    if (!open) {
      client.destroy();
      return;
    }
    accepted++;
    const upstream = connect(targetPort, '127.0.0.1');
    sockets.add(client);
    sockets.add(upstream);
    const done = (): void => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('error', done).on('close', done);
    upstream.on('error', done).on('close', done);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => {
      const address = server.address();
      if (address === null || typeof address !== 'object') {
        reject(new Error('proxy has no port'));
        return;
      }
      resolve({
        port: address.port,
        endpoint: `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`,
        get accepted() {
          return accepted;
        },
        cut() {
          open = false;
          for (const socket of sockets) socket.destroy();
          sockets.clear();
        },
        restore() {
          open = true;
        },
        close() {
          open = false;
          for (const socket of sockets) socket.destroy();
          sockets.clear();
          return new Promise<void>((done) => server.close(() => done()));
        },
      });
    });
  });
}
