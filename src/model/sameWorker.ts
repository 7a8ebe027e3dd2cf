import type { ChannelOptions, WorkerInfo } from './types.js';

function sameOptions(a: ChannelOptions, b: ChannelOptions): boolean {
  return (
    a === b ||
    (a.maxReceiveMessageLength === b.maxReceiveMessageLength &&
      a.maxSendMessageLength === b.maxSendMessageLength &&
      a.keepaliveTimeMs === b.keepaliveTimeMs &&
      a.keepaliveTimeoutMs === b.keepaliveTimeoutMs &&
      a.keepalivePermitWithoutCalls === b.keepalivePermitWithoutCalls &&
      a.maxPingsWithoutData === b.maxPingsWithoutData &&
      a.maxConcurrentStreams === b.maxConcurrentStreams &&
      a.compression === b.compression)
  );
}

function sameTags(a: readonly string[], b: readonly string[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  // workerInfo keeps tags sorted and unique, so equal sets are equal arrays:
  // compare in order first, and fall back to a set only for hand-made input.
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  if (i === a.length) return true;
  const set = new Set(a);
  if (set.size !== a.length) return false;
  for (const tag of b) if (!set.has(tag)) return false;
  return true;
}

function sameExtra(a: Readonly<Record<string, string>>, b: Readonly<Record<string, string>>): boolean {
  if (a === b) return true;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  for (const key of keys) {
    if (!Object.prototype.hasOwnProperty.call(b, key) || a[key] !== b[key]) return false;
  }
  return true;
}

/**
 * Structural equality of two workers: every field, tags compared as a set,
 * extra as a map, options field by field. Cheap when nothing changed:
 * identical references short-circuit.
 *
 * @example
 * sameWorker(worker, workerInfo({ ...worker, tags: [...worker.tags].reverse() })); // true
 *
 * @param a One worker.
 * @param b The other.
 * @returns `true` when they describe the same worker identically.
 */
export function sameWorker(a: WorkerInfo, b: WorkerInfo): boolean {
  return (
    a === b ||
    (a.uid === b.uid &&
      a.address === b.address &&
      a.pid === b.pid &&
      a.version === b.version &&
      a.secure === b.secure &&
      sameTags(a.tags, b.tags) &&
      sameExtra(a.extra, b.extra) &&
      sameOptions(a.options, b.options))
  );
}
