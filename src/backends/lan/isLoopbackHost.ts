import { isIPv4, isIPv6 } from 'node:net';

/**
 * Whether `host` only reaches this machine: `localhost`, 127.0.0.0/8, `::1`
 * or an IPv4-mapped 127.x address.
 *
 * @param host A host, IPv6 with or without brackets.
 * @returns `true` for a loopback host.
 */
export function isLoopbackHost(host: string): boolean {
  const bare = (host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host).toLowerCase();
  if (bare === 'localhost' || bare.endsWith('.localhost')) return true;
  if (isIPv4(bare)) return bare.startsWith('127.');
  if (!isIPv6(bare)) return false;
  // The WHATWG URL parser writes IPv6 in canonical compressed form
  // (IPv4-mapped as ::ffff:7fxx:xxxx).
  const canonical = new URL(`http://[${bare}]/`).hostname.slice(1, -1);
  return canonical === '::1' || /^::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}$/.test(canonical);
}
