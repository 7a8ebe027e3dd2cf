/**
 * An IPv6 address in the canonical compressed form of the WHATWG URL parser
 * (`0:0:0:0:0:0:0:1` → `::1`, IPv4-mapped as `::ffff:7f00:1`), or
 * `undefined` when `text` is not an IPv6 address. Pure: no Node built-in,
 * so the core (and a browser) can classify hosts.
 *
 * @example
 * canonicalIpv6('0:0:0:0:0:0:0:1'); // '::1'
 * canonicalIpv6('10.0.0.1'); // undefined
 *
 * @param text A host without brackets.
 * @returns The canonical form, or `undefined`.
 * @internal
 */
export function canonicalIpv6(text: string): string | undefined {
  // A zone (fe80::1%eth0) is not part of the address; URL refuses it.
  const address = text.split('%', 1)[0] ?? '';
  if (!address.includes(':') || !/^[0-9a-fA-F:.]+$/.test(address)) return undefined;
  try {
    return new URL(`http://[${address}]/`).hostname.slice(1, -1);
  } catch {
    return undefined;
  }
}
