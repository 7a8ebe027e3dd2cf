import { checkAddress, UNIX_ADDRESS } from './checkAddress.js';
import type { WorkerAddress } from './types.js';

/**
 * Parses a worker address: `host:port`, `[v6]:port` or `unix:path`.
 *
 * @example
 * parseAddress('[::1]:9000'); // { kind: 'tcp', host: '::1', port: 9000, ipv6: true }
 *
 * @param address The address to parse.
 * @returns The parsed address.
 * @throws {TypeError} Naming the address when it has no host, no port, or a
 * port outside 1–65535.
 */
export function parseAddress(address: string): WorkerAddress {
  const colon = checkAddress(address);
  if (colon === UNIX_ADDRESS) return { kind: 'unix', path: address.slice(5) };
  const ipv6 = address.startsWith('[');
  return {
    kind: 'tcp',
    host: ipv6 ? address.slice(1, colon - 1) : address.slice(0, colon),
    port: Number(address.slice(colon + 1)),
    ipv6,
  };
}
