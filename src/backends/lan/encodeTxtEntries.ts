import { encodeTxt } from '../../codec/encodeTxt.js';
import type { WorkerInfo } from '../../model/types.js';
import { TxtEntryTooLongError } from './TxtEntryTooLongError.js';

/** The most bytes one DNS character-string (one TXT entry) can hold. */
const MAX_ENTRY = 255;

/**
 * A worker's TXT record as the DNS character-strings mDNS sends: `key=value`
 * in UTF-8, or a bare `key` for wool's empty tags/extra.
 *
 * @returns One buffer per entry, in {@link encodeTxt}'s key order.
 * @throws {TxtEntryTooLongError} When an entry is over 255 bytes, naming its key.
 * @throws {TypeError} When {@link encodeTxt} rejects the worker.
 */
export function encodeTxtEntries(worker: WorkerInfo): Buffer[] {
  const txt = encodeTxt(worker);
  const entries: Buffer[] = [];
  for (const [key, value] of Object.entries(txt)) {
    const entry = Buffer.from(value === null ? key : `${key}=${value}`, 'utf8');
    if (entry.length > MAX_ENTRY) throw new TxtEntryTooLongError(key, entry.length, worker.uid);
    entries.push(entry);
  }
  return entries;
}
