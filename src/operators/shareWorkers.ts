import { isDiscoveryEventType } from '../events/isDiscoveryEventType.js';
import {
  asyncScheduler,
  Observable,
  Subscription,
  type MonoTypeOperatorFunction,
  type SchedulerLike,
  Subject,
  type Subscriber,
  takeUntil,
} from 'rxjs';
import { discoveryEvent } from '../events/discoveryEvent.js';
import type { DiscoveryEvent } from '../events/types.js';
import { describeValue } from '../model/describeValue.js';
import type { WorkerInfo } from '../model/types.js';

/** Options of {@link shareWorkers}. */
export interface ShareWorkersConfig {
  /**
   * How long, in milliseconds, the upstream stays subscribed after the last
   * subscriber left; a subscriber arriving meanwhile reuses it. `0` (the
   * default) tears it down at once; `Infinity` never does (the upstream then
   * lives until it errors or completes).
   */
  readonly gracePeriod?: number;
  /** Scheduler timing the grace period. Defaults to `asyncScheduler`. */
  readonly scheduler?: SchedulerLike;
}

type Delivery =
  | { readonly kind: 'next'; readonly event: DiscoveryEvent; readonly targets: readonly Subscriber<DiscoveryEvent>[] }
  | { readonly kind: 'error'; readonly error: unknown; readonly targets: readonly Subscriber<DiscoveryEvent>[] }
  | { readonly kind: 'complete'; readonly targets: readonly Subscriber<DiscoveryEvent>[] };

function isEvent(value: unknown): value is DiscoveryEvent {
  if (value === null || typeof value !== 'object') return false;
  const { type, worker } = value as { type?: unknown; worker?: unknown };
  return (
    isDiscoveryEventType(type) &&
    worker !== null &&
    typeof worker === 'object' &&
    typeof (worker as { uid?: unknown }).uid === 'string'
  );
}

function checkConfig(config: unknown): { gracePeriod: number; scheduler: SchedulerLike } {
  if (config === null || typeof config !== 'object') {
    throw new TypeError(`shareWorkers: config must be an object, got ${describeValue(config)}`);
  }
  const { gracePeriod = 0, scheduler = asyncScheduler } = config as ShareWorkersConfig;
  if (typeof gracePeriod !== 'number' || Number.isNaN(gracePeriod) || gracePeriod < 0) {
    throw new TypeError(
      `shareWorkers: gracePeriod must be a non-negative number of milliseconds, got ${describeValue(gracePeriod)}`,
    );
  }
  if (
    scheduler === null ||
    typeof scheduler !== 'object' ||
    typeof (scheduler as Partial<SchedulerLike>).schedule !== 'function'
  ) {
    throw new TypeError(`shareWorkers: scheduler must be a SchedulerLike, got ${describeValue(scheduler)}`);
  }
  return { gracePeriod, scheduler };
}

/**
 * Shares one subscription to a worker event stream among many subscribers,
 * and brings every late subscriber up to date with the workers it missed.
 *
 * <span class="informal">Like `share()`, but a subscriber arriving late
 * first receives a `worker-added` for every current worker, so each
 * subscriber sees a complete, consistent view.</span>
 *
 * ```
 * source:   --a---b---x------u----c--|
 * sub 1:    ^-----------------!
 * result 1: --a---b---x------u
 * sub 2:    ------------^-------------
 * result 2: ------------b----u----c--|
 * sub 3:    -------------------^------
 * result 3: -------------------v--c--|
 *
 *   a = added 1, b = added 2, x = dropped 1, u = updated 2 (now 2'), c = added 3
 *   sub 2's replay: b (1 was dropped before it came, so it is not replayed)
 *   sub 3's replay: v = added 2' (the latest metadata)
 * ```
 *
 * The first subscriber subscribes to the source; later ones share that
 * subscription. The operator keeps the current set of workers (uid → latest
 * {@link WorkerInfo}: `worker-added` and `worker-updated` set it,
 * `worker-dropped` removes it). A subscriber arriving while the source is
 * live first receives, synchronously on subscribe, one `worker-added` per
 * current worker with its latest metadata (dropped workers are not
 * replayed), in the order the workers were first added, then the live
 * events. Source events are passed through unchanged.
 *
 * - **Ref-counted.** One subscriber leaving never ends another's stream.
 *   When the last one leaves, the source is unsubscribed — at once, or after
 *   `gracePeriod` ms on `scheduler` if one is configured; a subscriber
 *   arriving within the grace period reuses the live source and receives
 *   the current set.
 * - **Errors and completion** reach every subscriber; the state is then
 *   reset, so the next subscriber subscribes to the source afresh (a
 *   `retry()` downstream works as expected). A value that is not a
 *   {@link DiscoveryEvent} errors every subscriber with a `TypeError` naming
 *   it, the same way.
 * - **Re-entrancy.** Subscribers may subscribe, unsubscribe or cause the
 *   source to emit from inside their own callbacks. Events are delivered
 *   through a queue, so every subscriber sees them in the order the source
 *   emitted them, never nested out of order; a subscriber that joins while
 *   an event is being delivered gets that event's effect in its replay and
 *   not a second time; an event emitted while a subscriber is being
 *   replayed reaches it right after the replay, neither lost nor duplicated.
 *
 * Each application of the operator (each `source.pipe(shareWorkers())`)
 * has its own shared subscription and state.
 *
 * @example
 * One watcher over a namespace, however many parts of the app listen.
 * ```ts
 * import { memoryDiscovery, shareWorkers } from 'woolrx';
 *
 * const workers$ = memoryDiscovery('jobs').events().pipe(shareWorkers({ gracePeriod: 1_000 }));
 * workers$.subscribe((event) => console.log('panel', event.type, event.worker.address));
 * // Later: receives a worker-added for every worker known by now, then live events.
 * workers$.subscribe((event) => console.log('router', event.type, event.worker.address));
 * ```
 *
 * @param config Optional grace period (ms, default `0`; `Infinity` keeps the
 * source forever) and the scheduler timing it (default `asyncScheduler`).
 * @returns A function that returns an Observable sharing one subscription to
 * the source, replaying the current workers to each new subscriber.
 * @throws {TypeError} When `gracePeriod` is negative or not a number, or
 * `scheduler` is not a scheduler.
 */
export function shareWorkers(config: ShareWorkersConfig = {}): MonoTypeOperatorFunction<DiscoveryEvent> {
  const { gracePeriod, scheduler } = checkConfig(config);
  // Hand-written rather than share(): share()'s Subject delivers an event a
  // subscriber causes from inside next before the current one reaches the
  // later subscribers, and cannot replay the current set atomically; both
  // are guarantees of this operator (test/operators/shareWorkers.test.ts).

  return (source) => {
    let members = new Set<Subscriber<DiscoveryEvent>>();
    let current = new Map<string, WorkerInfo>();
    let connection: Subscription | null = null;
    let graceTimer: Subscription | null = null;
    const queue: Delivery[] = [];
    let draining = false;

    // Delivers queued events in order; a nested call (from inside a
    // subscriber's callback) only enqueues, the outermost loop delivers.
    const drain = (): void => {
      if (draining) return;
      draining = true;
      try {
        for (let delivery = queue.shift(); delivery !== undefined; delivery = queue.shift()) {
          for (const target of delivery.targets) {
            if (target.closed) continue;
            if (delivery.kind === 'next') target.next(delivery.event);
            else if (delivery.kind === 'error') target.error(delivery.error);
            else target.complete();
          }
        }
      } finally {
        draining = false;
      }
    };

    const reset = (): void => {
      graceTimer?.unsubscribe();
      graceTimer = null;
      const ended = connection;
      connection = null;
      current = new Map();
      members = new Set();
      ended?.unsubscribe();
    };

    const end = (delivery: Delivery): void => {
      reset();
      queue.push(delivery);
      drain();
    };

    const connect = (): void => {
      const conn = new Subscription();
      connection = conn;
      // Ending the connection stops the source through takeUntil, which
      // reaches it even while it is still emitting synchronously inside
      // `subscribe` (before `subscribe` has returned its subscription).
      const stop = new Subject<void>();
      conn.add(() => stop.next());
      conn.add(
        source.pipe(takeUntil(stop)).subscribe({
          next: (event: DiscoveryEvent) => {
            if (connection !== conn) return;
            if (!isEvent(event)) {
              end({
                kind: 'error',
                error: new TypeError(`shareWorkers: expected a DiscoveryEvent, got ${describeValue(event)}`),
                targets: [...members],
              });
              return;
            }
            if (event.type === 'worker-dropped') current.delete(event.worker.uid);
            else current.set(event.worker.uid, event.worker);
            queue.push({ kind: 'next', event, targets: [...members] });
            drain();
          },
          error: (error: unknown) => {
            if (connection === conn) end({ kind: 'error', error, targets: [...members] });
          },
          complete: () => {
            if (connection === conn) end({ kind: 'complete', targets: [...members] });
          },
        }),
      );
    };

    const release = (): void => {
      if (connection === null) return;
      if (gracePeriod === 0) {
        reset();
      } else if (gracePeriod !== Infinity) {
        graceTimer = scheduler.schedule(() => {
          graceTimer = null;
          if (members.size === 0) reset();
        }, gracePeriod);
      }
    };

    return new Observable<DiscoveryEvent>((subscriber) => {
      graceTimer?.unsubscribe();
      graceTimer = null;
      const group = members;
      group.add(subscriber);
      // Added before the replay and the connection, so that a subscriber
      // leaving during either (a downstream take(1)) is released at once.
      subscriber.add(() => {
        // After an error or completion `members` is a new set: leaving the
        // old one must not tear down a connection made since.
        if (group.delete(subscriber) && group === members && group.size === 0) release();
      });
      if (current.size > 0) {
        const replay = [...current.values()];
        // Hold deliveries caused by the replay (a callback making the source
        // emit) until the replay is over, so they arrive after it, in order.
        const outermost = !draining;
        draining = true;
        try {
          for (const worker of replay) {
            if (subscriber.closed) break;
            subscriber.next(discoveryEvent('worker-added', worker));
          }
        } finally {
          if (outermost) draining = false;
        }
        if (outermost) drain();
      }
      if (connection === null && !subscriber.closed && group === members) connect();
    });
  };
}
