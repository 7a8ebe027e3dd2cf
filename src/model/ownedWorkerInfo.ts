import { canonicalTags } from './canonicalTags.js';
import { DEFAULT_CHANNEL_OPTIONS } from './DEFAULT_CHANNEL_OPTIONS.js';
import { madeWorkers } from './madeWorkers.js';
import type { WorkerInfo } from './types.js';
import { workerInfo } from './workerInfo.js';
import { workerScalars } from './workerScalars.js';

/**
 * The fields of a worker as a decoder produces them: typed, owned by the
 * caller, and their text decoded from strict UTF-8 (well-formed: it holds
 * no lone surrogate).
 */
export interface OwnedWorkerInit {
  readonly uid: string;
  readonly address: string;
  readonly pid: number;
  readonly version: string;
  /** Given up by the caller: frozen and kept when already in canonical order. */
  readonly tags: string[];
  /** A plain object given up by the caller: frozen and kept when already in canonical order. */
  readonly extra: Record<string, string>;
  readonly secure: boolean;
}

function canonicalExtra(extra: Record<string, unknown>): boolean {
  if (Object.getPrototypeOf(extra) !== Object.prototype) return false;
  let previous: string | undefined;
  for (const key of Object.keys(extra)) {
    const value = extra[key];
    if (typeof value !== 'string') return false;
    // In sorted order, the object's own key order is the one workerInfo() builds.
    if (previous !== undefined && !(previous < key)) return false;
    previous = key;
  }
  return true;
}

/**
 * {@link workerInfo} for a decoder: the same checks (but the tags' and
 * extra's well-formedness, which its strict UTF-8 decoding holds) and the
 * same frozen worker, with the default channel options, but the given
 * `tags` array and `extra` object are frozen and kept instead of copied when they are
 * already sorted (and tags without duplicates) — the form every encoder of
 * a {@link WorkerInfo} writes. Other tags or extra go through
 * {@link workerInfo} itself, which normalises them or throws its usual
 * error; the scalar fields are checked by the same code as in
 * {@link workerInfo} either way.
 * @param init The decoded fields; the caller must not use `tags` or `extra` afterwards.
 * @returns The frozen worker.
 * @throws {TypeError} As {@link workerInfo}.
 * @internal
 */
export function ownedWorkerInfo(init: OwnedWorkerInit): WorkerInfo {
  const { tags, extra } = init;
  if (
    !Array.isArray(tags) ||
    !canonicalTags(tags) ||
    extra === null ||
    typeof extra !== 'object' ||
    !canonicalExtra(extra)
  ) {
    return workerInfo(init);
  }
  // The scalar fields' rules are workerInfo's own (one place): the same checks, the same errors.
  const { uid, address, pid, version, secure } = workerScalars(init);
  const worker: WorkerInfo = Object.freeze({
    uid,
    address,
    pid,
    version,
    tags: Object.freeze(tags),
    extra: Object.freeze(extra),
    secure,
    options: DEFAULT_CHANNEL_OPTIONS,
  });
  madeWorkers.add(worker);
  return worker;
}
