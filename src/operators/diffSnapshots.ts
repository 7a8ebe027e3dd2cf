import { defer, mergeMap, type OperatorFunction } from 'rxjs';
import { WorkerLedger } from '../events/WorkerLedger.js';
import type { DiscoveryEvent, WorkerSnapshot } from '../events/types.js';
import { describeValue } from '../model/describeValue.js';

function isMap(value: unknown): value is WorkerSnapshot {
  // `instanceof` alone misses Maps from another realm (iframe, vm context).
  return value instanceof Map || Object.prototype.toString.call(value) === '[object Map]';
}

function describeSnapshot(value: unknown): string {
  if (Array.isArray(value)) return `array ${describeValue(value)}`;
  if (value !== null && typeof value === 'object') {
    const name = (value as { constructor?: { name?: unknown } }).constructor?.name;
    return `${typeof name === 'string' && name !== '' ? name : 'object'} ${describeValue(value)}`;
  }
  return describeValue(value);
}

/**
 * The step function of {@link diffSnapshots}: the events that lead from the
 * ledger's state to `snapshot`, which becomes the new state.
 * @internal
 * @param ledger What the subscriber has been told so far.
 * @param snapshot The next snapshot.
 * @returns Every `worker-dropped`, then the `worker-added` and
 * `worker-updated` events (see {@link WorkerLedger.reconcile}).
 * @throws {TypeError} Prefixed `diffSnapshots: `, naming a value that is not
 * a `Map` or a key that differs from its worker's uid; the ledger is then
 * unchanged.
 */
export function diffSnapshotsStep(ledger: WorkerLedger, snapshot: WorkerSnapshot): DiscoveryEvent[] {
  if (!isMap(snapshot)) {
    throw new TypeError(
      `diffSnapshots: snapshot must be a Map of uid to WorkerInfo, got ${describeSnapshot(snapshot)}`,
    );
  }
  try {
    return ledger.reconcile(snapshot);
  } catch (error) {
    // The ledger's own error, re-worded with the operator's prefix (not a new failure with a cause).
    // eslint-disable-next-line preserve-caught-error
    if (error instanceof TypeError) throw new TypeError(`diffSnapshots: ${error.message}`);
    throw error;
  }
}

/**
 * Turns a stream of worker snapshots into the worker events that lead from
 * one snapshot to the next.
 *
 * <span class="informal">The inverse of {@link toSnapshots}: a full listing
 * in, only the changes out. Unchanged workers emit nothing.</span>
 *
 * ```
 * source:  ---A----------B-------------C--|
 *             A = {1, 2}, B = {2', 3}, C = {3}   (2' = 2 with new metadata)
 * result:  ---(ab)-------(xyz)---------w--|
 *             a = added 1, b = added 2
 *             x = dropped 1, y = updated 2', z = added 3
 *             w = dropped 2'
 * ```
 *
 * Each snapshot is a `ReadonlyMap<uid, WorkerInfo>`. The first one is diffed
 * against the empty set, so it emits `worker-added` for each of its workers.
 * For every later snapshot, compared with the one before:
 *
 * - a uid that disappeared emits `worker-dropped` with its previous metadata;
 * - a new uid emits `worker-added`;
 * - a uid present in both emits `worker-updated` only when the worker really
 *   changed (`!sameWorker(prev, next)`; an identical reference
 *   short-circuits). Rescanning the same workers emits nothing — unlike wool,
 *   which reports every known worker as updated on every scan.
 *
 * **Order within one snapshot** (guaranteed): every `worker-dropped` first,
 * in the previous snapshot's iteration order; then the `worker-added` and
 * `worker-updated` events interleaved in the new snapshot's iteration order.
 * All events of one snapshot are emitted synchronously, in one burst (which
 * {@link toSnapshots} turns back into one snapshot).
 *
 * A snapshot is validated before any of its events is emitted: a value that
 * is not a `Map`, or a key that differs from its worker's `uid`, errors the
 * stream with a `TypeError` naming the value, and no partial diff is emitted.
 *
 * Each subscription keeps a reference to the previous snapshot instead of
 * copying it, so snapshots must not be mutated after they are emitted: emit
 * a fresh `Map` each time. Workers are immutable (as {@link workerInfo} makes
 * them): a worker object that the previous snapshot held under the same key
 * is taken as it is, without comparing or checking it again.
 *
 * @example
 * Report what changed between two scans.
 * ```ts
 * import { of } from 'rxjs';
 * import { diffSnapshots, workerInfo } from 'woolrx';
 *
 * const a = workerInfo({ uid: crypto.randomUUID(), address: 'a:1', pid: 1, version: '1' });
 * const b = workerInfo({ uid: crypto.randomUUID(), address: 'b:1', pid: 2, version: '1' });
 * of(new Map([[a.uid, a]]), new Map([[a.uid, a], [b.uid, b]]), new Map([[b.uid, b]]))
 *   .pipe(diffSnapshots())
 *   .subscribe((event) => console.log(event.type, event.worker.address));
 * // worker-added a:1
 * // worker-added b:1
 * // worker-dropped a:1
 * ```
 *
 * @see {@link toSnapshots}
 * @returns A function that returns an Observable of the {@link DiscoveryEvent}s
 * between consecutive snapshots of the source, per subscription.
 */
export function diffSnapshots(): OperatorFunction<WorkerSnapshot, DiscoveryEvent> {
  return (source) =>
    defer(() => {
      const ledger = new WorkerLedger();
      return source.pipe(mergeMap((snapshot) => diffSnapshotsStep(ledger, snapshot)));
    });
}
