import {
  Observable,
  asyncScheduler,
  type MonoTypeOperatorFunction,
  type SchedulerAction,
  type SchedulerLike,
  type Subscription,
} from 'rxjs';
import { discoveryEvent } from '../events/discoveryEvent.js';
import type { DiscoveryEvent } from '../events/types.js';
import { describeValue } from '../model/describeValue.js';
import { sameWorker } from '../model/sameWorker.js';
import type { WorkerInfo } from '../model/types.js';

interface Sighting {
  readonly worker: WorkerInfo;
  readonly deadline: number;
}

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
 * renewed, so a single scheduled action per subscription, aimed at the
 * earliest deadline, serves all workers; when it fires it drops every lease
 * that has run out and re-aims itself at the next one.
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
    throw new TypeError(`expireWorkers: ttl must be a finite positive number of milliseconds, got ${typeof ttl === 'number' ? String(ttl) : describeValue(ttl)}`);
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
    new Observable<DiscoveryEvent>((subscriber) => {
      /**
       * uid → last sighting. A renewed uid is deleted and re-inserted, so the
       * map's iteration order is deadline order and its first entry expires
       * first.
       */
      const leases = new Map<string, Sighting>();
      /** Deadlines never decrease, even if the clock steps back. */
      let lastDeadline = -Infinity;
      /** The one sweeper action, aimed at (or before) the earliest deadline. */
      let sweeper: Subscription | undefined;
      let sweeping = false;

      const delayUntilFirstDeadline = (now: number): number | undefined => {
        for (const lease of leases.values()) return Math.max(0, lease.deadline - now);
        return undefined;
      };

      const sweep = function (this: SchedulerAction<undefined>): void {
        sweeping = true;
        const now = scheduler.now();
        for (const [uid, lease] of leases) {
          if (lease.deadline > now || subscriber.closed) break;
          leases.delete(uid);
          subscriber.next(discoveryEvent('worker-dropped', lease.worker));
        }
        sweeping = false;
        const delay = subscriber.closed ? undefined : delayUntilFirstDeadline(scheduler.now());
        if (delay === undefined) {
          sweeper = undefined;
        } else {
          sweeper = this.schedule(undefined, delay);
        }
      };

      const arm = (): void => {
        if (sweeper !== undefined || sweeping) return;
        const delay = delayUntilFirstDeadline(scheduler.now());
        if (delay !== undefined) sweeper = scheduler.schedule(sweep, delay);
      };

      const disarm = (): void => {
        sweeper?.unsubscribe();
        sweeper = undefined;
      };

      const next = (event: DiscoveryEvent): void => {
        if (subscriber.closed) return;
        const type = event?.type;
        const worker = event?.worker as WorkerInfo | null | undefined;
        if (worker === null || typeof worker !== 'object' || typeof worker.uid !== 'string') {
          subscriber.error(new TypeError(`expireWorkers: event has no worker uid: ${describeValue(event)}`));
          return;
        }
        const uid = worker.uid;
        switch (type) {
          case 'worker-added':
          case 'worker-updated': {
            const known = leases.get(uid);
            lastDeadline = Math.max(lastDeadline, scheduler.now() + ttl);
            if (known !== undefined) leases.delete(uid);
            leases.set(uid, { worker, deadline: lastDeadline });
            if (known === undefined) {
              arm();
              subscriber.next(type === 'worker-added' ? event : discoveryEvent('worker-added', worker));
            } else if (known.worker !== worker && !sameWorker(known.worker, worker)) {
              subscriber.next(type === 'worker-updated' ? event : discoveryEvent('worker-updated', worker));
            }
            return;
          }
          case 'worker-dropped': {
            if (!leases.delete(uid)) return;
            if (leases.size === 0) disarm();
            subscriber.next(event);
            return;
          }
          default:
            subscriber.error(new TypeError(`expireWorkers: unknown event type ${describeValue(type)}`));
        }
      };

      const subscription = source.subscribe({
        next,
        error: (err: unknown) => subscriber.error(err),
        complete: () => subscriber.complete(),
      });
      return () => {
        subscription.unsubscribe();
        disarm();
        leases.clear();
      };
    });
}
