import { canonicalIpv6 } from './canonicalIpv6.js';

/**
 * Whether `host` means "every local address" (`0.0.0.0`, `::` in any
 * spelling, or empty): a bind address, never one peers can reach.
 *
 * @example
 * isWildcardHost('0.0.0.0'); // true
 * isWildcardHost('[::]'); // true
 * isWildcardHost('10.0.0.1'); // false
 *
 * @param host A host, IPv6 with or without brackets.
 * @returns `true` for a wildcard.
 */
export function isWildcardHost(host: string): boolean {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  if (bare === '' || bare === '0.0.0.0' || bare === '*') return true;
  return /^[0:]+$/.test(bare) && canonicalIpv6(bare) === '::';
}
