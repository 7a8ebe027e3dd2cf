import {
  asyncScheduler,
  defer,
  exhaustMap,
  finalize,
  merge,
  mergeMap,
  type MonoTypeOperatorFunction,
  Observable,
  type SchedulerAction,
  type SchedulerLike,
  Subject,
  takeUntil,
} from 'rxjs';
import type { DiscoveryEvent } from '../events/types.js';
import { describeValue } from '../model/describeValue.js';
import { LeaseBook } from './LeaseBook.js';
import { stepOperator } from './stepOperator.js';

/**
 * Drops a worker that has not been announced again within `ttl`
 * milliseconds, for backends without reliable goodbyes (mDNS).
 *
 * <span class="informal">Like a lease: every announcement renews it; a lease
 * that runs out emits `worker-dropped`.</span>
 *
 * ```
 * ttl = 5
 *
 * source:  -a-b-a-c--------|
 *             a = sighting of 1 (same metadata both times)
 *             b = sighting of 2, c = sighting of 2 with new metadata
 * result:  -a-b---c--D-E---|
 *             a = added 1, b = added 2, c = updated 2
 *             D = dropped 1 (5 frames after its last sighting)
 *             E = dropped 2 (5 frames after c)
 * ```
 *
 * The source is a stream of sightings: every announcement or re-announcement
 * of a worker is a `worker-added` or `worker-updated` event (which of the two
 * does not matter). The result is a normalised event stream:
 *
 * - the first sighting of a uid emits `worker-added`;
 * - a sighting with changed metadata ({@link sameWorker} is false) emits
 *   `worker-updated`;
 * - a sighting with unchanged metadata emits nothing, but restarts the
 *   worker's `ttl`;
 * - an explicit `worker-dropped` of a known uid is passed through and
 *   cancels its timer (one of an unknown uid is suppressed);
 * - a worker not sighted within `ttl` ms of its last sighting emits
 *   `worker-dropped` carrying its last metadata.
 *
 * State and timers are per subscription. Every timer is cancelled when the
 * result is unsubscribed, errors or completes (completion is passed through
 * at once; workers still alive are not dropped).
 *
 * Cheap with many workers: a sighting costs O(1) and schedules nothing. Since
 * every lease has the same length, leases expire in the order they were last
 * renewed, so a single timer per subscription, aimed at the earliest
 * deadline, serves all workers; when it fires it drops every lease that has
 * run out and re-aims at the next one.
 *
 * @example
 * Forget mDNS workers that have not re-announced for 30 seconds.
 * ```ts
 * import { expireWorkers } from 'woolrx';
 *
 * mdnsSightings$ // worker-added on every announcement
 *   .pipe(expireWorkers(30_000))
 *   .subscribe((event) => console.log(event.type, event.worker.address));
 * ```
 *
 * @param ttl How long, in milliseconds, a sighting keeps a worker alive. A
 * finite positive number.
 * @param scheduler The scheduler that times the leases. Defaults to
 * `asyncScheduler`; a `TestScheduler` makes them virtual.
 * @returns A function that returns an Observable of normalised worker events,
 * with a `worker-dropped` for each worker whose lease ran out.
 * @throws {TypeError} When `ttl` is not a finite positive number or
 * `scheduler` is not a scheduler (at call time).
 */
export function expireWorkers(
  ttl: number,
  scheduler: SchedulerLike = asyncScheduler,
): MonoTypeOperatorFunction<DiscoveryEvent> {
  if (typeof ttl !== 'number' || !Number.isFinite(ttl) || ttl <= 0) {
    throw new TypeError(
      'expireWorkers: ttl must be a finite positive number of milliseconds, ' +
        `got ${typeof ttl === 'number' ? String(ttl) : describeValue(ttl)}`,
    );
  }
  if (
    scheduler === null ||
    typeof scheduler !== 'object' ||
    typeof scheduler.schedule !== 'function' ||
    typeof scheduler.now !== 'function'
  ) {
    throw new TypeError(`expireWorkers: scheduler must be a SchedulerLike, got ${describeValue(scheduler)}`);
  }
  return (source) =>
    defer(() => {
      const book = new LeaseBook(ttl);
      /** Emits when a new worker got a lease: the sweeper must be running. */
      const arm = new Subject<void>();
      /** Emits when the source is done (completed, failed or unsubscribed): the sweeper stops. */
      const ended = new Subject<void>();
      // One sweeper at a time (exhaustMap): it drops what ran out and ends
      // when no lease is left; the next new worker re-arms it.
      const expiries = arm.pipe(
        exhaustMap(() => sweeps(book, scheduler)),
        mergeMap((now) => book.expire(now)),
        takeUntil(ended),
      );
      const sightings = source.pipe(
        // Stops the sweeper once the source is done (and costs nothing per event).
        finalize(() => ended.next()),
        stepOperator(
          () => book,
          (leases, event: DiscoveryEvent) => {
            const out = leases.sight(event, scheduler.now());
            if (out?.type === 'worker-added') arm.next();
            return out;
          },
        ),
      );
      // The sweeper subscribes first: a source that emits (or completes)
      // synchronously on subscription — the memory and local backends'
      // initial state — arms it and ends it like any later sighting.
      return merge(expiries, sightings);
    });
}

/**
 * The times at which `book`'s earliest lease runs out, each emitted once it
 * has, until no lease is left. A source like RxJS's own `timer`: one
 * scheduled action, re-aimed after each emission, so a subscription
 * schedules one action however many workers it watches.
 */
function sweeps(book: LeaseBook, scheduler: SchedulerLike): Observable<number> {
  return new Observable<number>((subscriber) =>
    scheduler.schedule(
      function (this: SchedulerAction<undefined>) {
        subscriber.next(scheduler.now());
        const delay = book.delay(scheduler.now());
        if (delay === undefined) subscriber.complete();
        else if (!subscriber.closed) this.schedule(undefined, delay);
      },
      book.delay(scheduler.now()) ?? 0,
    ),
  );
}
