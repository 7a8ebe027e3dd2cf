import { DEFAULT_CHANNEL_OPTIONS } from './DEFAULT_CHANNEL_OPTIONS.js';
import { madeWorkers } from './madeWorkers.js';
import type { ChannelOptions, Compression, WorkerInfo, WorkerInfoInit } from './types.js';
import { checkText, failField as fail, workerScalars } from './workerScalars.js';

const INT32_MAX = 2_147_483_647;
const INT32_MIN = -2_147_483_648;
const COMPRESSIONS: readonly Compression[] = ['none', 'deflate', 'gzip'];
const INT_OPTIONS = [
  'maxReceiveMessageLength',
  'maxSendMessageLength',
  'keepaliveTimeMs',
  'keepaliveTimeoutMs',
  'maxPingsWithoutData',
  'maxConcurrentStreams',
] as const;

const FIELDS: readonly string[] = ['uid', 'address', 'pid', 'version', 'tags', 'extra', 'secure', 'options'];

/** A key {@link workerInfo} does not know (`tag`, `extras`): refused, as factories refuse unknown options. */
function checkKeys(init: object): void {
  for (const key of Object.keys(init)) {
    if (FIELDS.includes(key)) continue;
    const near = FIELDS.find((field) => field === `${key}s` || `${field}s` === key);
    const hint = near === undefined ? '' : `; did you mean ${near}?`;
    throw new TypeError(`Invalid worker field: ${JSON.stringify(key)} (expected one of ${FIELDS.join(', ')}${hint})`);
  }
}

function toTags(tags: WorkerInfoInit['tags']): readonly string[] {
  if (tags === undefined) return Object.freeze([]);
  if (typeof tags === 'string' || tags === null || typeof tags[Symbol.iterator] !== 'function') {
    fail('tags', tags, 'an iterable of strings');
  }
  const set = new Set<string>();
  for (const tag of tags) {
    if (typeof tag !== 'string') fail('tag', tag, 'a string');
    checkText('tag', tag);
    set.add(tag);
  }
  return Object.freeze([...set].sort());
}

function toExtra(extra: WorkerInfoInit['extra']): Readonly<Record<string, string>> {
  if (extra === undefined) return Object.freeze({});
  if (extra === null || typeof extra !== 'object') fail('extra', extra, 'an object of string values');
  let entries: Iterable<readonly [unknown, unknown]>;
  if (extra instanceof Map || typeof (extra as Iterable<unknown>)[Symbol.iterator] === 'function') {
    entries = extra as Iterable<readonly [unknown, unknown]>;
  } else {
    entries = Object.entries(extra);
  }
  const pairs: [string, string][] = [];
  for (const entry of entries) {
    if (!Array.isArray(entry) || entry.length !== 2) fail('extra entry', entry, 'a [key, value] pair');
    const [key, value] = entry as [unknown, unknown];
    if (typeof key !== 'string') fail('extra key', key, 'a string');
    if (typeof value !== 'string') fail(`extra[${JSON.stringify(key)}]`, value, 'a string');
    checkText('extra key', key);
    checkText(`extra[${JSON.stringify(key)}]`, value);
    pairs.push([key, value]);
  }
  pairs.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  // Object.fromEntries defines own properties, so a "__proto__" key is data.
  return Object.freeze(Object.fromEntries(pairs));
}

function toOptions(options: WorkerInfoInit['options']): ChannelOptions {
  if (options === undefined) return DEFAULT_CHANNEL_OPTIONS;
  if (options === null || typeof options !== 'object') fail('options', options, 'a ChannelOptions object');
  const merged: Record<string, unknown> = { ...DEFAULT_CHANNEL_OPTIONS };
  for (const [key, value] of Object.entries(options)) {
    if (value === undefined) continue;
    if (!(key in DEFAULT_CHANNEL_OPTIONS)) fail('options key', key, 'a ChannelOptions field');
    merged[key] = value;
  }
  for (const key of INT_OPTIONS) {
    const value = merged[key];
    if (typeof value !== 'number' || !Number.isInteger(value) || value < INT32_MIN || value > INT32_MAX) {
      fail(`options.${key}`, value, 'a 32-bit integer');
    }
  }
  if (typeof merged['keepalivePermitWithoutCalls'] !== 'boolean') {
    fail('options.keepalivePermitWithoutCalls', merged['keepalivePermitWithoutCalls'], 'a boolean');
  }
  if (!COMPRESSIONS.includes(merged['compression'] as Compression)) {
    fail('options.compression', merged['compression'], `one of ${COMPRESSIONS.join(', ')}`);
  }
  return Object.freeze(merged as unknown as ChannelOptions);
}

/**
 * Builds a validated, immutable {@link WorkerInfo}.
 *
 * The uid is normalised to lowercase, tags are de-duplicated and sorted,
 * extra keys sorted, and missing options filled with wool's defaults. The
 * result is deeply frozen and structured-clone safe.
 *
 * @example
 * const worker = workerInfo({
 *   uid: crypto.randomUUID(),
 *   address: '127.0.0.1:50051',
 *   pid: process.pid,
 *   version: '1.0.0',
 *   tags: ['gpu'],
 *   extra: { zone: 'eu-1' },
 * });
 *
 * @param init The worker's fields.
 * @returns The frozen worker.
 * @throws {TypeError} Naming the field and the bad value: a uid that is not a
 * (non-nil) UUID, an address without a port, a pid that is not a
 * non-negative int32, a non-string tag or extra value, a bad option, a key
 * that is not a field (`tag`, `extras`).
 */
export function workerInfo(init: WorkerInfoInit): WorkerInfo {
  // Made here already: valid, and deeply frozen, so still valid.
  if (madeWorkers.has(init)) return init as WorkerInfo;
  if (init === null || typeof init !== 'object') fail('init', init, 'an object');
  checkKeys(init);
  const { uid, address, pid, version, secure } = workerScalars(init);
  const worker: WorkerInfo = Object.freeze({
    uid,
    address,
    pid,
    version,
    tags: toTags(init.tags),
    extra: toExtra(init.extra),
    secure,
    options: toOptions(init.options),
  });
  madeWorkers.add(worker);
  return worker;
}
