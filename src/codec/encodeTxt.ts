import { describeValue } from '../model/describeValue.js';
import type { WorkerInfo } from '../model/types.js';
import type { TxtRecord } from './types.js';

const LONE_SURROGATE = /\p{Surrogate}/u;
const HEX = '0123456789abcdef';
const SHORT_ESCAPES: Readonly<Record<number, string>> = {
  0x22: '\\"',
  0x5c: '\\\\',
  0x08: '\\b',
  0x0c: '\\f',
  0x0a: '\\n',
  0x0d: '\\r',
  0x09: '\\t',
};

// A JSON string literal exactly as Python's json.dumps (ensure_ascii=True)
// writes it: printable ASCII as is, the short escapes, everything else
// (controls, DEL, non-ASCII, each UTF-16 unit of an astral character) as a
// lowercase \uXXXX.
function pyString(text: string): string {
  let out = '"';
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0x20 && code <= 0x7e && code !== 0x22 && code !== 0x5c) {
      out += text[i];
    } else {
      out +=
        SHORT_ESCAPES[code] ??
        `\\u${HEX[(code >> 12) & 15]}${HEX[(code >> 8) & 15]}${HEX[(code >> 4) & 15]}${HEX[code & 15]}`;
    }
  }
  return `${out}"`;
}

/**
 * Encodes a worker as the mDNS TXT record wool advertises: `pid` (decimal),
 * `version`, `tags` (JSON array), `extra` (JSON object), `secure`
 * (`true`/`false`). Empty tags or extra become bare keys (`null`). JSON is
 * written as Python's `json.dumps` does (`", "` and `": "` separators,
 * non-ASCII escaped as `\uXXXX`), tags and extra keys in sorted order. The
 * uid travels in the instance name and the address in SRV/A records;
 * ChannelOptions are not sent.
 *
 * @example
 * encodeTxt(worker);
 * // { pid: '4242', version: '0.13.1', tags: '["gpu"]', extra: null, secure: 'false' }
 *
 * @param worker A worker built by {@link workerInfo}.
 * @returns The TXT key/values (not size-checked: that is the LAN backend's job).
 * @throws {TypeError} When the version is empty (wool, and {@link decodeTxt},
 * skip a record without a version: the worker would be invisible) or holds a
 * lone UTF-16 surrogate (TXT values are UTF-8; tags and extra are safe, their
 * JSON is ASCII).
 */
export function encodeTxt(worker: WorkerInfo): TxtRecord {
  if (worker.version === '') {
    throw new TypeError('Cannot encode worker version: "" (mDNS readers skip a record with an empty version)');
  }
  if (LONE_SURROGATE.test(worker.version)) {
    throw new TypeError(
      `Cannot encode worker version: ${describeValue(worker.version)} (lone UTF-16 surrogate, not valid Unicode)`,
    );
  }
  const extraKeys = Object.keys(worker.extra);
  return Object.freeze({
    pid: String(worker.pid),
    version: worker.version,
    tags: worker.tags.length === 0 ? null : `[${worker.tags.map(pyString).join(', ')}]`,
    extra:
      extraKeys.length === 0
        ? null
        : `{${extraKeys.map((key) => `${pyString(key)}: ${pyString(worker.extra[key] ?? '')}`).join(', ')}}`,
    secure: worker.secure ? 'true' : 'false',
  });
}
