import { isIPv6 } from 'node:net';

/**
 * Whether `host` means "every local address" (`0.0.0.0`, `::` in any
 * spelling, or empty): a bind address, never one peers can reach.
 *
 * @param host A host, IPv6 with or without brackets.
 * @returns `true` for a wildcard.
 */
export function isWildcardHost(host: string): boolean {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  if (bare === '' || bare === '0.0.0.0' || bare === '*') return true;
  return isIPv6(bare) && /^[0:]+$/.test(bare);
}
