import { describeValue } from './describeValue.js';
import { checkAddress } from './checkAddress.js';
import type { WorkerInfoInit } from './types.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const NIL_UUID = '00000000-0000-0000-0000-000000000000';
const INT32_MAX = 2_147_483_647;
// In a /u regex a paired surrogate is one code point, so this matches only a
// lone surrogate: text with no UTF-8 form, which no wire format can carry.
const LONE_SURROGATE = /\p{Surrogate}/u;

/**
 * Throws the TypeError every worker field check throws.
 * @param field The field's name.
 * @param value The bad value.
 * @param expected What was expected.
 * @internal
 */
export function failField(field: string, value: unknown, expected: string): never {
  throw new TypeError(`Invalid worker ${field}: ${describeValue(value)} (expected ${expected})`);
}

/**
 * Refuses text that no wire format can carry (a lone UTF-16 surrogate).
 * @param field The field's name, for the error.
 * @param value The text.
 * @internal
 */
export function checkText(field: string, value: string): void {
  if (LONE_SURROGATE.test(value)) failField(field, value, 'well-formed Unicode text (lone UTF-16 surrogate)');
}

/**
 * The checked scalar fields of a worker — the one place their rules live,
 * for {@link workerInfo} and the decoders' fast path alike.
 * @param init The worker's fields.
 * @returns uid (lowercased), address, pid, version and secure (default `false`).
 * @throws {TypeError} Naming the field and the bad value.
 * @internal
 */
export function workerScalars(init: WorkerInfoInit): {
  uid: string;
  address: string;
  pid: number;
  version: string;
  secure: boolean;
} {
  const { uid, address, pid, version, secure } = init;
  if (typeof uid !== 'string' || !UUID.test(uid)) failField('uid', uid, 'a hyphenated UUID');
  const normalizedUid = uid.toLowerCase();
  if (normalizedUid === NIL_UUID) failField('uid', uid, 'a non-nil UUID');
  checkAddress(address);
  if (typeof pid !== 'number' || !Number.isInteger(pid) || pid < 0 || pid > INT32_MAX) {
    failField('pid', pid, 'a non-negative 32-bit integer');
  }
  if (typeof version !== 'string') failField('version', version, 'a string');
  checkText('address', address);
  checkText('version', version);
  if (secure !== undefined && typeof secure !== 'boolean') failField('secure', secure, 'a boolean');
  return { uid: normalizedUid, address, pid, version, secure: secure ?? false };
}
