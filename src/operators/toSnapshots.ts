import { Observable, asapScheduler, type OperatorFunction, type SchedulerLike, type Subscription } from 'rxjs';
import type { DiscoveryEvent, WorkerSnapshot } from '../events/types.js';
import { describeValue } from '../model/describeValue.js';
import { sameWorker } from '../model/sameWorker.js';
import type { WorkerInfo } from '../model/types.js';

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
 * nothing. When the source completes, a pending batch is flushed
 * synchronously, then the result completes. When the source errors, a
 * pending batch is discarded and the error forwarded at once.
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
export function toSnapshots(scheduler: SchedulerLike = asapScheduler): OperatorFunction<DiscoveryEvent, WorkerSnapshot> {
  if (scheduler === null || typeof scheduler !== 'object' || typeof scheduler.schedule !== 'function') {
    throw new TypeError(`toSnapshots: scheduler must be a SchedulerLike, got ${describeValue(scheduler)}`);
  }
  return (source) =>
    new Observable<WorkerSnapshot>((subscriber) => {
      /** The last emitted snapshot; never mutated. */
      let emitted = new Map<string, WorkerInfo>();
      /** The working set: `emitted` until the batch's first write, then a copy. */
      let working = emitted;
      /** Uids touched in the current batch. */
      const touched = new Set<string>();
      /** A flush is scheduled (and has not run yet). */
      let scheduled = false;
      /** The scheduled flush, to cancel it; unset if the scheduler ran it synchronously. */
      let pending: Subscription | undefined;

      const flush = (): void => {
        scheduled = false;
        pending = undefined;
        let changed = false;
        for (const uid of touched) {
          const before = emitted.get(uid);
          const after = working.get(uid);
          if (before === after) continue;
          if (before === undefined || after === undefined || !sameWorker(before, after)) {
            changed = true;
            break;
          }
        }
        touched.clear();
        if (changed) {
          emitted = working;
          subscriber.next(emitted);
        } else {
          working = emitted;
        }
      };

      const writable = (): Map<string, WorkerInfo> => {
        if (working === emitted) working = new Map(emitted);
        return working;
      };

      const scheduleFlush = (): void => {
        if (scheduled) return;
        scheduled = true;
        const action = scheduler.schedule(flush);
        // A synchronous scheduler (queueScheduler outside a queue) has
        // already run the flush; keep the handle only if it is still pending.
        if (scheduled) pending = action;
      };

      const next = (event: DiscoveryEvent): void => {
        if (subscriber.closed) return;
        const worker = event?.worker as WorkerInfo | null | undefined;
        const uid: unknown = worker?.uid;
        if (typeof uid !== 'string') {
          subscriber.error(new TypeError(`toSnapshots: event has no worker uid: ${describeValue(event)}`));
          return;
        }
        switch (event.type) {
          case 'worker-added':
          case 'worker-updated': {
            if (working.get(uid) === worker) return;
            writable().set(uid, worker as WorkerInfo);
            break;
          }
          case 'worker-dropped': {
            if (!working.has(uid)) return;
            writable().delete(uid);
            break;
          }
          default:
            subscriber.error(new TypeError(`toSnapshots: unknown event type ${describeValue(event.type)}`));
            return;
        }
        touched.add(uid);
        scheduleFlush();
      };

      const subscription = source.subscribe({
        next,
        error: (err: unknown) => subscriber.error(err),
        complete: () => {
          if (scheduled) {
            pending?.unsubscribe();
            flush();
          }
          subscriber.complete();
        },
      });
      return () => {
        subscription.unsubscribe();
        pending?.unsubscribe();
        pending = undefined;
        scheduled = false;
        touched.clear();
      };
    });
}
