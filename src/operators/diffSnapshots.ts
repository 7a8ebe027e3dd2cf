import { Observable, type OperatorFunction } from 'rxjs';
import { discoveryEvent } from '../events/discoveryEvent.js';
import type { DiscoveryEvent, WorkerSnapshot } from '../events/types.js';
import { describeValue } from '../model/describeValue.js';
import { sameWorker } from '../model/sameWorker.js';
import type { WorkerInfo } from '../model/types.js';

const EMPTY: WorkerSnapshot = new Map<string, WorkerInfo>();

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
 * The operator keeps a reference to the previous snapshot instead of copying
 * it (a snapshot of 10,000 workers with 1 % changed costs one pass of
 * `Map.get` and about 100 comparisons). Snapshots must therefore not be
 * mutated after they are emitted: emit a fresh `Map` each time.
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
    new Observable<DiscoveryEvent>((subscriber) => {
      let prev: WorkerSnapshot = EMPTY;
      // Per-subscription scratch state for the two passes, so that a
      // snapshot allocates nothing but the events it emits. Map#forEach is
      // used over for-of: it does not allocate an entry pair per worker and
      // is about twice as fast on large maps.
      let next: WorkerSnapshot = EMPTY;
      let changes: DiscoveryEvent[] | undefined;
      let drops: DiscoveryEvent[] | undefined;
      let kept = 0;
      let invalid: TypeError | undefined;

      const visitNew = (worker: WorkerInfo, uid: string): void => {
        if (invalid !== undefined) return;
        if (worker === null || typeof worker !== 'object' || worker.uid !== uid) {
          const actual = worker !== null && typeof worker === 'object' ? describeValue(worker.uid) : describeValue(worker);
          invalid = new TypeError(`diffSnapshots: snapshot key ${describeValue(uid)} does not match its worker's uid ${actual}`);
          return;
        }
        const before = prev.get(uid);
        if (before === undefined) {
          (changes ??= []).push(discoveryEvent('worker-added', worker));
        } else {
          kept++;
          if (before !== worker && !sameWorker(before, worker)) {
            (changes ??= []).push(discoveryEvent('worker-updated', worker));
          }
        }
      };

      const visitPrev = (worker: WorkerInfo, uid: string): void => {
        if (!next.has(uid)) (drops ??= []).push(discoveryEvent('worker-dropped', worker));
      };

      const emit = (events: readonly DiscoveryEvent[]): boolean => {
        for (const event of events) {
          subscriber.next(event);
          if (subscriber.closed) return false;
        }
        return true;
      };

      const onSnapshot = (snapshot: WorkerSnapshot): void => {
        if (subscriber.closed) return;
        if (!isMap(snapshot)) {
          subscriber.error(
            new TypeError(`diffSnapshots: snapshot must be a Map of uid to WorkerInfo, got ${describeSnapshot(snapshot)}`),
          );
          return;
        }
        next = snapshot;
        changes = undefined;
        drops = undefined;
        kept = 0;
        // Pass 1 over the new snapshot: validate, collect added/updated, and
        // count the previous uids still present.
        snapshot.forEach(visitNew);
        if (invalid !== undefined) {
          next = EMPTY;
          changes = undefined;
          subscriber.error(invalid);
          return;
        }
        // Pass 2 over the previous snapshot, only if some uid disappeared.
        if (kept < prev.size) prev.forEach(visitPrev);
        prev = snapshot;
        next = EMPTY;
        const dropped = drops;
        const changed = changes;
        drops = undefined;
        changes = undefined;
        if (dropped !== undefined && !emit(dropped)) return;
        if (changed !== undefined) emit(changed);
      };

      const subscription = source.subscribe({
        next: onSnapshot,
        error: (err: unknown) => subscriber.error(err),
        complete: () => subscriber.complete(),
      });
      return () => {
        subscription.unsubscribe();
        prev = EMPTY;
        next = EMPTY;
      };
    });
}
