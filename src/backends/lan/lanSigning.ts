import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { TxtRecord } from '../../codec/types.js';

/** A shared secret of {@link lanDiscovery}'s `signingKey` option: a string (its UTF-8 bytes) or bytes. */
export type LanSigningKey = string | Uint8Array;

/** A signing key ready to use: its bytes and its non-secret id. @internal */
export interface LanKey {
  /**
   * 8 hex digits: the first 4 bytes of SHA-256 over a domain tag and the key. Says which key signed, reveals nothing
   * usable.
   */
  readonly id: string;
  readonly secret: Buffer;
}

/** The TXT key of the signature entry (wool and plain woolrx subscribers ignore it). */
export const SIGNATURE_TXT_KEY = 'woolrx-sig';
/** The format version, the first field of the entry's value. */
const FORMAT = '1';
/**
 * Domain separation: the first field of every HMAC input, so these MACs can never be confused with another use of
 * the key.
 */
const DOMAIN = 'woolrx/lan-record/v1';
/** The least bytes a key may have. */
export const MIN_KEY_BYTES = 16;
/** The least characters a string key may have (16 random bytes in base64, unpadded). */
export const MIN_KEY_CHARS = 22;
/** The least distinct byte values (for a string: characters) a key must hold. */
export const MIN_DISTINCT = 8;
/**
 * A record whose timestamp is further than this from the subscriber's clock,
 * and newer than anything the subscriber has seen of the worker, is stale (a
 * replay of a record it never saw) or from the future: 5 minutes.
 */
export const FRESHNESS_MS = 300_000;
/**
 * A publisher re-signs a worker's record (fresh timestamp) when it answers a query and its signature is older than
 * this: 1 minute.
 */
export const RESIGN_AFTER_MS = 60_000;

const KEY_RULE =
  `a secret of at least ${MIN_KEY_BYTES} bytes with at least ${MIN_DISTINCT} distinct byte values, ` +
  `or a string of at least ${MIN_KEY_CHARS} characters with at least ${MIN_DISTINCT} distinct characters ` +
  `(e.g. \`openssl rand -base64 32\`), or a non-empty array of such keys`;

function keyError(what: string): TypeError {
  // Never the key itself: only its type and size.
  const got = what.startsWith('key ') ? `in the list, ${what}` : `got ${what}`;
  return new TypeError(`lanDiscovery: option signingKey must be ${KEY_RULE}; ${got}`);
}

function readKey(value: unknown, where: string): LanKey {
  let secret: Buffer;
  if (typeof value === 'string') {
    const chars = [...value];
    if (chars.length < MIN_KEY_CHARS) throw keyError(`${where}a string of ${chars.length} characters`);
    const distinct = new Set(chars).size;
    if (distinct < MIN_DISTINCT) throw keyError(`${where}a string with only ${distinct} distinct characters`);
    secret = Buffer.from(value, 'utf8');
  } else if (value instanceof Uint8Array) {
    if (value.length < MIN_KEY_BYTES) throw keyError(`${where}${value.length} bytes`);
    const distinct = new Set(value).size;
    if (distinct < MIN_DISTINCT) throw keyError(`${where}bytes with only ${distinct} distinct values`);
    secret = Buffer.from(value); // a copy: the caller may reuse its buffer
  } else {
    throw keyError(`${where}${value === null ? 'null' : Array.isArray(value) ? 'a nested array' : typeof value}`);
  }
  const id = createHash('sha256').update('woolrx/lan-key-id/v1\0').update(secret).digest('hex').slice(0, 8);
  return Object.freeze({ id, secret });
}

/**
 * Reads the `signingKey` option.
 * @param value The option's value: a key or a non-empty array of keys (the first signs, all verify).
 * @returns The keys, or `undefined` when the option is absent.
 * @throws {TypeError} On a key breaking the rule; the message states the rule and never holds the key.
 * @internal
 */
export function readSigningKeys(value: unknown): readonly LanKey[] | undefined {
  if (value === undefined) return undefined;
  if (Array.isArray(value)) {
    if (value.length === 0) throw keyError('an empty array');
    const keys = value.map((item: unknown, index) => readKey(item, `key ${index}: `));
    const ids = new Set(keys.map((key) => key.id));
    if (ids.size !== keys.length) throw new TypeError('lanDiscovery: option signingKey lists the same key twice');
    return Object.freeze(keys);
  }
  return Object.freeze([readKey(value, '')]);
}

/** What a signature covers. */
export interface SignedFields {
  readonly namespace: string;
  /** The worker uid (the instance label; compared lower case, as DNS names are). */
  readonly uid: string;
  /** The address subscribers decode: `ip:port` or `[ipv6]:port`. */
  readonly address: string;
  /** The worker's TXT values as {@link encodeTxt} writes them (`null`: a bare key). */
  readonly txt: TxtRecord;
  /** The signing time, ms since the epoch, strictly increasing per worker and publisher. */
  readonly time: number;
}

/** The TXT fields in the signed order. */
const TXT_ORDER = ['pid', 'version', 'tags', 'extra', 'secure'] as const;

function field(value: string | null): Buffer {
  if (value === null) return Buffer.from([0xff]);
  const bytes = Buffer.from(value, 'utf8');
  const head = Buffer.alloc(5);
  head.writeUInt32BE(bytes.length, 1);
  return Buffer.concat([head, bytes]);
}

/**
 * The bytes the HMAC covers: the domain tag, namespace, uid, address, the
 * five TXT values in a fixed order and the time, each as a presence byte
 * (0xff: absent, a bare TXT key) or 0x00 + a 4-byte big-endian length + UTF-8.
 * Length prefixes make the encoding injective: no two field lists share it.
 * @internal Exported for the tests and the bench.
 */
export function canonicalRecord(fields: SignedFields): Buffer {
  return Buffer.concat([
    field(DOMAIN),
    field(fields.namespace),
    field(fields.uid.toLowerCase()),
    field(fields.address),
    ...TXT_ORDER.map((key) => field(fields.txt[key] ?? null)),
    field(String(fields.time)),
  ]);
}

function mac(key: LanKey, fields: SignedFields): Buffer {
  return createHmac('sha256', key.secret).update(canonicalRecord(fields)).digest();
}

/**
 * The signature entry of a worker's TXT record:
 * `woolrx-sig=1.<key id>.<time>.<base64url HMAC-SHA-256>` (about 80 bytes).
 * @internal
 */
export function signatureEntry(key: LanKey, fields: SignedFields): Buffer {
  return Buffer.from(
    `${SIGNATURE_TXT_KEY}=${FORMAT}.${key.id}.${fields.time}.${mac(key, fields).toString('base64url')}`,
    'utf8',
  );
}

/** Why a record does not authenticate. */
export type UnauthenticatedReason = 'unsigned' | 'malformed signature' | 'unknown key' | 'bad signature';

/** The outcome of {@link verifyRecord}. */
export type Verification =
  | { readonly ok: true; readonly time: number; readonly keyId: string }
  | { readonly ok: false; readonly reason: UnauthenticatedReason };

const ENTRY = /^1\.([0-9a-f]{8})\.(\d{1,15})\.([A-Za-z0-9_-]{43})$/;

/**
 * Checks a record's signature entry against the keys (constant-time
 * comparison). Freshness and rollback are the caller's: it knows what it has seen.
 * @param keys The accepted keys.
 * @param entry The value of the `woolrx-sig` TXT entry (`true` for a bare key, `undefined` when absent).
 * @param fields What the record says, without the time (taken from the entry).
 * @returns The verified time, or why it failed.
 * @internal
 */
export function verifyRecord(
  keys: readonly LanKey[],
  entry: Uint8Array | true | undefined,
  fields: Omit<SignedFields, 'time'>,
): Verification {
  if (entry === undefined) return { ok: false, reason: 'unsigned' };
  const match = entry === true ? null : ENTRY.exec(Buffer.from(entry).toString('latin1'));
  if (match === null) return { ok: false, reason: 'malformed signature' };
  const [, keyId = '', timeText = '', macText = ''] = match;
  const key = keys.find((candidate) => candidate.id === keyId);
  if (key === undefined) return { ok: false, reason: 'unknown key' };
  const time = Number(timeText);
  const given = Buffer.from(macText, 'base64url');
  const expected = mac(key, { ...fields, time });
  if (given.length !== expected.length || !timingSafeEqual(given, expected))
    return { ok: false, reason: 'bad signature' };
  return { ok: true, time, keyId };
}
