/**
 * An mDNS TXT record as {@link encodeTxt} writes it: key → UTF-8 text, or
 * `null` for a bare key sent without `=` (wool's empty tags or extra).
 */
export type TxtRecord = Readonly<Record<string, string | null>>;

/**
 * One TXT value as mDNS libraries hand it over: text, raw bytes (binary
 * mode), `true` or `null` for a bare key, or `undefined` when absent.
 * {@link decodeTxt} accepts all of them.
 */
export type TxtValue = string | Uint8Array | boolean | null | undefined;
