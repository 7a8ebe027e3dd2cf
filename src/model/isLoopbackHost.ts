import { canonicalIpv6 } from './canonicalIpv6.js';

const IPV4 = /^(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;

/**
 * Whether `host` only reaches this machine: `localhost`, 127.0.0.0/8, `::1`
 * or an IPv4-mapped 127.x address.
 *
 * @example
 * isLoopbackHost('127.0.0.1'); // true
 * isLoopbackHost('[::1]'); // true
 * isLoopbackHost('10.0.0.1'); // false
 *
 * @param host A host, IPv6 with or without brackets.
 * @returns `true` for a loopback host.
 */
export function isLoopbackHost(host: string): boolean {
  const bare = (host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host).toLowerCase();
  if (bare === 'localhost' || bare.endsWith('.localhost')) return true;
  if (IPV4.test(bare)) return bare.startsWith('127.');
  const canonical = canonicalIpv6(bare);
  if (canonical === undefined) return false;
  return canonical === '::1' || /^::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}$/.test(canonical);
}
