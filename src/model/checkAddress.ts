import { describeValue } from './describeValue.js';

/** What {@link checkAddress} returns for a `unix:` address. @internal */
export const UNIX_ADDRESS = -1;

const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COLON = 0x3a;
const DIGIT_0 = 0x30;
const DIGIT_9 = 0x39;
const MAX_PORT_DIGITS = 5;
/** What a host may not hold; global, so that a search can start at the host and be placed by `lastIndex`. */
const BAD_HOST_CHAR = /[\s/\0]/g;

function fail(address: unknown, why: string): never {
  throw new TypeError(`Invalid worker address: ${describeValue(address)} (${why})`);
}

/**
 * Checks a worker address — `host:port`, `[v6]:port` or `unix:path` — the
 * way {@link parseAddress} parses it, without building its parts: every
 * worker decoded is checked, and most are never parsed.
 * @param address The address to check.
 * @returns Where the port's colon is, or {@link UNIX_ADDRESS}.
 * @throws {TypeError} As {@link parseAddress}, naming the address.
 * @internal
 */
export function checkAddress(address: unknown): number {
  if (typeof address !== 'string') fail(address, 'expected a string');
  if (address.startsWith('unix:')) {
    if (address.length === 5 || address.includes('\0', 5)) fail(address, 'unix address without a path');
    return UNIX_ADDRESS;
  }
  let hostStart = 0;
  let hostEnd: number;
  if (address.charCodeAt(0) === OPEN_BRACKET) {
    const close = address.indexOf(']');
    if (close < 0 || address.charCodeAt(close + 1) !== COLON) fail(address, 'expected [v6]:port');
    hostStart = 1;
    hostEnd = close;
    const colon = address.indexOf(':', 1);
    if (colon < 0 || colon > close) fail(address, 'brackets need an IPv6 address');
  } else {
    hostEnd = address.lastIndexOf(':');
    if (hostEnd < 0) fail(address, 'no port; expected host:port');
    if (address.indexOf(':') < hostEnd) fail(address, 'an IPv6 host must be bracketed: [v6]:port');
  }
  if (hostEnd === hostStart) fail(address, 'bad or missing host');
  BAD_HOST_CHAR.lastIndex = hostStart;
  // Each match is one character: it ends at lastIndex.
  if (BAD_HOST_CHAR.test(address) && BAD_HOST_CHAR.lastIndex - 1 < hostEnd) fail(address, 'bad or missing host');
  const colon = address.charCodeAt(hostEnd) === CLOSE_BRACKET ? hostEnd + 1 : hostEnd;
  const digits = address.length - colon - 1;
  let port = digits >= 1 && digits <= MAX_PORT_DIGITS ? 0 : -1;
  for (let i = colon + 1; port >= 0 && i < address.length; i += 1) {
    const c = address.charCodeAt(i);
    port = c >= DIGIT_0 && c <= DIGIT_9 ? port * 10 + (c - DIGIT_0) : -1;
  }
  if (!(port >= 1 && port <= 65_535)) fail(address, 'port must be 1-65535');
  return colon;
}
