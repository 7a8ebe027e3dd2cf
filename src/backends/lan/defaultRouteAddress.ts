import { createSocket } from 'node:dgram';

// Documentation addresses (RFC 5737, RFC 3849): connecting a UDP socket to
// one only asks the kernel for a route; no packet is ever sent.
const PROBE = { 4: '192.0.2.1', 6: '2001:db8::1' } as const;

/**
 * The local address the kernel would send from towards the default route,
 * found by connecting (not sending on) a UDP socket.
 *
 * @param family 4 or 6.
 * @returns The address, or `undefined` when there is no route.
 */
export function defaultRouteAddress(family: 4 | 6): Promise<string | undefined> {
  return new Promise((resolve) => {
    let socket: ReturnType<typeof createSocket>;
    try {
      socket = createSocket(family === 4 ? 'udp4' : 'udp6');
    } catch {
      resolve(undefined);
      return;
    }
    let settled = false;
    const finish = (address: string | undefined): void => {
      if (settled) return;
      settled = true;
      try {
        socket.close();
      } catch {
        // already closed
      }
      resolve(address);
    };
    socket.once('error', () => finish(undefined));
    try {
      socket.connect(9, PROBE[family], () => {
        try {
          const { address } = socket.address();
          finish(address === '0.0.0.0' || address === '::' ? undefined : address);
        } catch {
          finish(undefined);
        }
      });
    } catch {
      finish(undefined);
    }
  });
}
