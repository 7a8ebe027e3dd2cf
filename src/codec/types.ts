/**
 * An mDNS TXT record as {@link encodeTxt} writes it: key → UTF-8 text, or
 * `null` for a bare key sent without `=` (wool's empty tags or extra).
 */
export type TxtRecord = Readonly<Record<string, string | null>>;
