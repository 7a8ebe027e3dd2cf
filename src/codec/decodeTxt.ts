import { WorkerDecodeError } from '../errors/WorkerDecodeError.js';
import { describeValue } from '../model/describeValue.js';
import type { WorkerInfo } from '../model/types.js';
import { workerInfo } from '../model/workerInfo.js';
import type { TxtValue } from './types.js';

const DECIMAL = /^[0-9]+$/;
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

function causeText(cause: unknown): string {
  return cause instanceof Error ? cause.message : String(cause);
}

// Text of a TXT value; null for a bare key (`true`, `null`) or a missing one.
function textOf(key: string, value: TxtValue): string | null {
  if (value === undefined || value === null || value === true || value === false) return null;
  if (typeof value === 'string') return value;
  if (value instanceof Uint8Array) {
    try {
      return utf8.decode(value);
    } catch (cause) {
      throw new WorkerDecodeError(`Invalid TXT ${key}: not UTF-8 (${value.length} bytes)`, { cause });
    }
  }
  throw new WorkerDecodeError(`Invalid TXT ${key}: ${describeValue(value)} (expected a string or bytes)`);
}

function parseJson(key: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (cause) {
    throw new WorkerDecodeError(`Invalid TXT ${key}: ${describeValue(text)} is not JSON (${causeText(cause)})`, {
      cause,
    });
  }
}

function toTags(text: string | null): string[] {
  if (text === null || text === '') return [];
  const tags = parseJson('tags', text);
  if (!Array.isArray(tags) || !tags.every((tag) => typeof tag === 'string')) {
    throw new WorkerDecodeError(`Invalid TXT tags: ${describeValue(text)} (expected a JSON array of strings)`);
  }
  return tags;
}

function toExtra(text: string | null): Map<string, string> {
  const extra = new Map<string, string>();
  if (text === null || text === '') return extra;
  const parsed = parseJson('extra', text);
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new WorkerDecodeError(`Invalid TXT extra: ${describeValue(text)} (expected a JSON object of strings)`);
  }
  // JSON.parse makes "__proto__" an own data property; Object.entries sees it.
  for (const [key, value] of Object.entries(parsed)) {
    if (typeof value !== 'string') {
      throw new WorkerDecodeError(
        `Invalid TXT extra: ${describeValue(text)} (value of ${JSON.stringify(key)} is not a string)`,
      );
    }
    extra.set(key, value);
  }
  return extra;
}

/**
 * Decodes an mDNS TXT record advertised by a wool (or woolrx) worker into a
 * validated, frozen {@link WorkerInfo}.
 *
 * Accepts what mDNS libraries hand out: values as strings or bytes
 * (`Uint8Array`/`Buffer`, decoded as strict UTF-8), bare keys as `true` or
 * `null`. Keys match case-insensitively (DNS-SD rule; the first spelling
 * wins); unknown keys are ignored. Like wool, `pid` and `version` are
 * required and must be non-empty; bare or empty `tags`/`extra` mean empty;
 * a missing `secure` means `false`. The uid and address come from the
 * instance name and the SRV/address records, passed in `where`. Options are
 * not advertised, so the worker gets {@link DEFAULT_CHANNEL_OPTIONS}.
 *
 * @example
 * decodeTxt(
 *   { pid: '4242', version: '0.13.1', tags: true, extra: true, secure: 'false' },
 *   { uid: '6f1d2b1c-4c0b-4e7e-9a56-0c2b9d1d7e11', address: '127.0.0.1:50051' },
 * );
 *
 * @param txt The TXT key/values.
 * @param where The worker's uid (instance label) and address (`host:port`).
 * @returns The worker.
 * @throws {WorkerDecodeError} Naming the key (and value): `pid` or `version`
 * missing, a non-decimal pid, tags/extra that are not JSON of the right
 * shape, `secure` other than `true`/`false`, bytes that are not UTF-8, or an
 * invalid uid/address/pid (the `workerInfo` TypeError as `cause`).
 */
export function decodeTxt(
  txt: Readonly<Record<string, TxtValue>>,
  where: { uid: string; address: string },
): WorkerInfo {
  if (txt === null || typeof txt !== 'object') {
    throw new WorkerDecodeError(`Invalid TXT record: ${describeValue(txt)} (expected an object)`);
  }
  if (where === null || typeof where !== 'object') {
    throw new WorkerDecodeError(`Invalid TXT record location: ${describeValue(where)} (expected { uid, address })`);
  }
  const byKey = new Map<string, TxtValue>();
  for (const key of Object.keys(txt)) {
    const lower = key.toLowerCase();
    if (!byKey.has(lower)) byKey.set(lower, txt[key]);
  }
  const field = (key: string): string | null => textOf(key, byKey.get(key));

  const pidText = field('pid');
  if (pidText === null || pidText === '') throw new WorkerDecodeError('Invalid TXT record: missing pid');
  const versionText = field('version');
  if (versionText === null || versionText === '') throw new WorkerDecodeError('Invalid TXT record: missing version');
  if (!DECIMAL.test(pidText)) {
    throw new WorkerDecodeError(`Invalid TXT pid: ${describeValue(pidText)} (expected a decimal integer)`);
  }
  const secureText = field('secure');
  let secure = false;
  if (secureText !== null) {
    const lower = secureText.toLowerCase();
    if (lower !== 'true' && lower !== 'false') {
      throw new WorkerDecodeError(`Invalid TXT secure: ${describeValue(secureText)} (expected true or false)`);
    }
    secure = lower === 'true';
  }
  const tags = toTags(field('tags'));
  const extra = toExtra(field('extra'));
  try {
    return workerInfo({
      uid: where.uid,
      address: where.address,
      pid: Number(pidText),
      version: versionText,
      tags,
      extra,
      secure,
    });
  } catch (cause) {
    throw new WorkerDecodeError(`Invalid worker in TXT record: ${causeText(cause)}`, { cause });
  }
}
