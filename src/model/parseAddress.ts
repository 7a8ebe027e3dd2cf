import { describeValue } from './describeValue.js';
import type { WorkerAddress } from './types.js';

const PORT = /^\d{1,5}$/;

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
  if (typeof address !== 'string') {
    throw new TypeError(`Invalid worker address: ${describeValue(address)} (expected a string)`);
  }
  if (address.startsWith('unix:')) {
    const path = address.slice(5);
    if (path.length === 0 || path.includes('\0')) {
      throw new TypeError(`Invalid worker address: ${describeValue(address)} (unix address without a path)`);
    }
    return { kind: 'unix', path };
  }
  let host: string;
  let portText: string;
  let ipv6 = false;
  if (address.startsWith('[')) {
    const close = address.indexOf(']');
    if (close < 0 || address[close + 1] !== ':') {
      throw new TypeError(`Invalid worker address: ${describeValue(address)} (expected [v6]:port)`);
    }
    host = address.slice(1, close);
    portText = address.slice(close + 2);
    ipv6 = true;
    if (!host.includes(':')) {
      throw new TypeError(`Invalid worker address: ${describeValue(address)} (brackets need an IPv6 address)`);
    }
  } else {
    const colon = address.lastIndexOf(':');
    if (colon < 0) {
      throw new TypeError(`Invalid worker address: ${describeValue(address)} (no port; expected host:port)`);
    }
    host = address.slice(0, colon);
    portText = address.slice(colon + 1);
    if (host.includes(':')) {
      throw new TypeError(
        `Invalid worker address: ${describeValue(address)} (an IPv6 host must be bracketed: [v6]:port)`,
      );
    }
  }
  if (host.length === 0 || /[\s/\0]/.test(host)) {
    throw new TypeError(`Invalid worker address: ${describeValue(address)} (bad or missing host)`);
  }
  const port = PORT.test(portText) ? Number(portText) : Number.NaN;
  if (!(port >= 1 && port <= 65_535)) {
    throw new TypeError(`Invalid worker address: ${describeValue(address)} (port must be 1-65535)`);
  }
  return { kind: 'tcp', host, port, ipv6 };
}
