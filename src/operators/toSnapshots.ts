import { asapScheduler, type OperatorFunction, type SchedulerLike } from 'rxjs';
import type { DiscoveryEvent, WorkerSnapshot } from '../events/types.js';
import { describeValue } from '../model/describeValue.js';
import { batchSnapshots } from './SnapshotBatch.js';

/**
 * Folds worker events into snapshots of the current workers, one snapshot per
 * synchronous burst of events.
 *
 * <span class="informal">The inverse of {@link diffSnapshots}: changes in,
 * full listings out.</span>
 *
 * ```
 * source:  --a--(bc)----d----(ee')--|
 *              a = added 1, b = added 2, c = updated 1
 *              d = dropped 2, e/e' = dropped 1 then added 1 again, unchanged
 * result:  --A--B-------C-----------|
 *              A = {1}, B = {1', 2}, C = {1'}
 *              (e, e') net to no change: nothing is emitted
 * ```
 *
 * Each subscription keeps its own set of current workers, by uid:
 * `worker-added` and `worker-updated` put the event's worker in the set (an
 * update of an unknown uid adds it), `worker-dropped` removes the uid.
 *
 * Events that arrive in one synchronous burst — such as all the events
 * {@link diffSnapshots} emits for one snapshot — are batched: the first event
 * of a batch schedules a flush on `scheduler`, and the flush emits one
 * snapshot holding every change of the batch. A batch that nets to no change
 * (a worker added then dropped, an update to identical metadata) emits
 * nothing. When the source completes with a batch pending, the result
 * completes right after that batch's flush (in the same microtask with the
 * default scheduler). When the source errors, a pending batch is discarded
 * and the error forwarded at once.
 *
 * **Why `asapScheduler` by default.** It runs the flush in a microtask:
 * after the current synchronous burst has ended, before any timer or I/O
 * callback. So one burst becomes exactly one snapshot, while events that
 * arrive in separate macrotasks (separate backend messages) stay separate,
 * and no wall-clock delay is added. Inside `TestScheduler.run`,
 * `asapScheduler` is virtualised like `asyncScheduler`: the flush happens in
 * the same virtual frame as the burst, so marble tests stay deterministic.
 * Pass another scheduler to batch differently: `queueScheduler` flushes
 * synchronously (one snapshot per event), `asyncScheduler` batches per
 * macrotask.
 *
 * **Inverse property.** For any sequence of snapshots `S`, emitted one per
 * tick (each snapshot's events flushed before the next arrives),
 * `S.pipe(diffSnapshots(), toSnapshots())` emits `S` with consecutive
 * duplicates removed, where an implicit empty snapshot precedes `S` (so
 * leading empty snapshots emit nothing). Snapshots are equal when they hold
 * the same uids and, uid by uid, {@link sameWorker} workers. Iteration order
 * is the order in which uids were first added since they were last dropped,
 * not necessarily the order of `S`.
 *
 * Every emitted `Map` is fresh and never mutated after it is emitted, so it is
 * safe to keep, compare by reference, or hand to {@link diffSnapshots}.
 *
 * @example
 * Keep a table of the current workers, updated once per change burst.
 * ```ts
 * import { memoryDiscovery, toSnapshots } from 'woolrx';
 *
 * memoryDiscovery('demo')
 *   .events()
 *   .pipe(toSnapshots())
 *   .subscribe((workers) => render([...workers.values()]));
 * ```
 *
 * @see {@link diffSnapshots}
 * @param scheduler The scheduler on which a batch is flushed. Defaults to
 * `asapScheduler` (one microtask: one synchronous burst, one snapshot).
 * @returns A function that returns an Observable of {@link WorkerSnapshot}s:
 * the current workers after each batch of source events that changed them.
 */
export function toSnapshots(
  scheduler: SchedulerLike = asapScheduler,
): OperatorFunction<DiscoveryEvent, WorkerSnapshot> {
  if (scheduler === null || typeof scheduler !== 'object' || typeof scheduler.schedule !== 'function') {
    throw new TypeError(`toSnapshots: scheduler must be a SchedulerLike, got ${describeValue(scheduler)}`);
  }
  return batchSnapshots<DiscoveryEvent>(true, (batch, event) => batch.record(event), scheduler);
}
