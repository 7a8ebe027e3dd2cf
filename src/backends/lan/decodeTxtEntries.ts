/**
 * The key/values of a TXT record's character-strings (RFC 6763 §6): the key
 * is what precedes the first `=`; a string without `=` is a bare key
 * (`true`); an empty string or one starting with `=` is skipped; of a key
 * given twice (case-insensitively) only the first counts. Values stay bytes:
 * {@link decodeTxt} checks they are UTF-8.
 *
 * @param data The TXT data as multicast-dns decodes it.
 * @returns Key → value bytes, or `true` for a bare key.
 */
export function decodeTxtEntries(data: unknown): Record<string, Uint8Array | true> {
  const out: Record<string, Uint8Array | true> = Object.create(null) as Record<string, Uint8Array | true>;
  const seen = new Set<string>();
  const strings: unknown[] = Array.isArray(data) ? data : [data];
  for (const item of strings) {
    const bytes = typeof item === 'string' ? Buffer.from(item, 'utf8') : item instanceof Uint8Array ? item : undefined;
    if (bytes === undefined || bytes.length === 0) continue;
    const equals = bytes.indexOf(0x3d);
    if (equals === 0) continue;
    const keyBytes = equals < 0 ? bytes : bytes.subarray(0, equals);
    const key = Buffer.from(keyBytes).toString('latin1');
    const lower = key.toLowerCase();
    if (seen.has(lower)) continue;
    seen.add(lower);
    out[key] = equals < 0 ? true : bytes.subarray(equals + 1);
  }
  return out;
}
