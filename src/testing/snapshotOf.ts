import type { WorkerSnapshot } from '../events/types.js';
import type { WorkerInfo } from '../model/types.js';

/**
 * A snapshot (uid → worker) of the given workers, in the given order.
 * @example expectObservable(events.pipe(toSnapshots())).toBe('a', { a: snapshotOf(w1, w2) });
 * @param workers The workers; a later one with the same uid replaces an earlier one.
 * @returns The snapshot.
 */
export function snapshotOf(...workers: readonly WorkerInfo[]): WorkerSnapshot {
  return new Map(workers.map((worker) => [worker.uid, worker]));
}
