import { Observable, Subscription } from 'rxjs';
import { LeaseLostError } from '../errors/LeaseLostError.js';
import { QueueClosedError } from '../errors/QueueClosedError.js';
import type { DiscoveryItem } from '../events/types.js';
import { describeValue } from '../model/describeValue.js';
import { sameWorker } from '../model/sameWorker.js';
import type { WorkerInfo, WorkerPredicate } from '../model/types.js';
import { eventWorker } from './eventWorker.js';
import { PredicatedQueue } from './PredicatedQueue.js';
import { isAbortSignal } from './isAbortSignal.js';

// The declarations `Disposable` needs, as TypeScript's esnext.disposable lib
// and @types/node write them (identical declarations merge), so that a
// consumer whose `lib` lacks esnext.disposable type-checks woolrx's types.
declare global {
  interface SymbolConstructor {
    /** The method `using` calls (ES2026 explicit resource management). */
    readonly dispose: unique symbol;
  }
  /** An object `using` can dispose. */
  interface Disposable {
    /** Releases the object's resources. */
    [Symbol.dispose](): void;
  }
}

/** One worker handed to one caller by {@link leaseWorkers}, until `release()`. */
export interface WorkerLease extends Disposable {
  /** The worker, as it was when handed out. */
  readonly worker: WorkerInfo;
  /**
   * Aborted when the worker can no longer be relied on: it was dropped, an
   * update no longer passes the lease's predicate (or the predicate threw),
   * or the pool ended. Its `reason` is a {@link LeaseLostError} saying which.
   * Pass it to the work done on the worker (`fetch(url, { signal: lease.lost })`).
   */
  readonly lost: AbortSignal;
  /**
   * Gives the worker back to the pool, with its latest metadata — unless it
   * was dropped meanwhile, or the pool has ended. Idempotent; also what
   * `using` calls.
   */
  release(): void;
}

/** Options of {@link WorkerLeases.acquire}. */
export interface AcquireOptions {
  /** Aborting it withdraws a pending acquire, which rejects with the signal's reason. */
  readonly signal?: AbortSignal | undefined;
}

/** The pool {@link leaseWorkers} returns. */
export interface WorkerLeases extends Disposable {
  /**
   * Leases a worker: resolves with the first available worker passing
   * `predicate` or, if there is none, waits for one (callers are served in
   * call order among those that accept a worker).
   * @param predicate Which workers will do; any by default. Asked once per
   * worker and caller (again after an update), and again on every update of
   * the leased worker: when it stops passing, the lease is lost.
   * @param options `signal`: withdraws the acquire while it waits.
   * @returns The lease. Rejects with the signal's reason when aborted, with
   * what the predicate threw, with a `TypeError` naming a bad argument, or
   * with {@link QueueClosedError} once the pool has ended.
   */
  acquire(predicate?: WorkerPredicate, options?: AcquireOptions): Promise<WorkerLease>;
  /**
   * The Observable form of {@link WorkerLeases.acquire}: each subscription
   * waits in line for one worker passing `predicate`, emits its lease and
   * completes; unsubscribing before leaves the line. Errors as `acquire`
   * rejects. The lease outlives the subscription: release it.
   * @param predicate Which workers will do; any by default.
   * @returns A cold Observable of one lease.
   */
  lease(predicate?: WorkerPredicate): Observable<WorkerLease>;
  /** The workers nobody holds, latest metadata, in the order they are offered. */
  readonly available: readonly WorkerInfo[];
  /** `true` once the pool has ended (closed, or its source completed or failed). */
  readonly closed: boolean;
  /**
   * Ends the pool: unsubscribes the source, rejects pending acquires with
   * {@link QueueClosedError}, and loses every lease. Idempotent; also what
   * `using` calls.
   */
  close(): void;
}

const any: WorkerPredicate = () => true;

function checkPredicate(predicate: unknown): asserts predicate is WorkerPredicate {
  if (typeof predicate !== 'function') {
    throw new TypeError(`leaseWorkers: predicate must be a function, got ${describeValue(predicate)}`);
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : describeValue(error);
}

/** A lease still held: who asked for what. */
interface Holder {
  readonly predicate: WorkerPredicate;
  readonly controller: AbortController;
}

/**
 * Hands each worker of a stream of worker events to one caller at a time:
 * a pool of leases, built on {@link PredicatedQueue}. `acquire(predicate?)`
 * resolves with a lease `{ worker, lost, release() }`; until it is released
 * nobody else gets that worker. Callers wait in line (FIFO among those whose
 * predicate accepts a worker); a worker that is dropped is never handed out
 * again, and its lease's `lost` signal fires — as it does when an update
 * makes the leased worker fail the lease's predicate. `release()` gives the
 * worker back with its latest metadata, unless it was dropped meanwhile.
 *
 * ```text
 * events$:         --a--b-----B--x--|   a: any worker; b: gpu; B updates b; x drops a
 * acquire(gpu):    ^----b               the GPU caller, first in line, leases b
 * acquire():       ^-a                  a goes to the next caller in line
 *   its lost:      --------------L      fired when a is dropped
 * b released:      --------r            b is available again (as B after the update)
 * at |:                                 pending acquires reject (QueueClosedError), leases are lost
 * ```
 *
 * The source is subscribed at once, and until `close()` (or `using`), or
 * until it completes or fails: the pool then ends — pending acquires reject
 * with {@link QueueClosedError} (`cause`: the source's error), and every
 * lease is lost. A malformed event ends it the same way (`cause`: a
 * `TypeError` naming it). `{ type: 'synced' }` items (`discovery.watch()`)
 * are ignored. An update of a worker nobody holds replaces it in the pool
 * (and offers it again to callers that rejected it before). While a worker
 * is leased, updates only keep its latest metadata for `release()`.
 *
 * @example Hand each GPU worker to one job at a time
 * ```ts
 * const pool = leaseWorkers(discovery.events());
 * const lease = await pool.acquire((w) => w.tags.includes('gpu'), { signal: AbortSignal.timeout(5000) });
 * try {
 *   await runJob(lease.worker.address, { signal: lease.lost });
 * } finally {
 *   lease.release();
 * }
 * pool.close();
 * ```
 *
 * @param events$ Worker events (or `discovery.watch()` items): the pool's workers.
 * @returns The pool.
 * @throws {TypeError} When `events$` is not an Observable.
 */
export function leaseWorkers(events$: Observable<DiscoveryItem>): WorkerLeases {
  if (
    events$ === null ||
    typeof events$ !== 'object' ||
    typeof (events$ as Partial<Observable<unknown>>).subscribe !== 'function'
  ) {
    throw new TypeError(`leaseWorkers: events$ must be an Observable of worker events, got ${describeValue(events$)}`);
  }
  const queue = new PredicatedQueue<WorkerInfo>();
  /** Latest metadata of every worker the source reported and did not drop. */
  const live = new Map<string, WorkerInfo>();
  /** The holder of each leased worker. */
  const held = new Map<string, Holder>();
  const source = new Subscription();
  let ended: QueueClosedError | undefined;

  const end = (error: QueueClosedError): void => {
    if (ended !== undefined) return;
    ended = error;
    source.unsubscribe();
    const holders = [...held];
    held.clear();
    live.clear();
    queue.error(error);
    for (const [uid, holder] of holders) {
      holder.controller.abort(new LeaseLostError(uid, 'closed', error.message, { cause: error }));
    }
  };

  const lose = (holder: Holder, error: LeaseLostError): void => {
    if (!holder.controller.signal.aborted) holder.controller.abort(error);
  };

  const onItem = (item: DiscoveryItem): void => {
    if ((item as { type?: unknown } | null)?.type === 'synced') return;
    const event = item as Exclude<DiscoveryItem, { type: 'synced' }>;
    const worker = eventWorker('leaseWorkers', event);
    const { uid } = worker;
    const same = (candidate: WorkerInfo): boolean => candidate.uid === uid;
    switch (event.type) {
      case 'worker-added':
      case 'worker-updated': {
        const previous = live.get(uid);
        live.set(uid, worker);
        // A re-announcement that changes nothing keeps the worker's place, and its lease.
        if (previous !== undefined && sameWorker(previous, worker)) return;
        const holder = held.get(uid);
        if (holder === undefined) {
          queue.remove(same);
          queue.tryPut(worker);
          return;
        }
        let passes: boolean;
        try {
          passes = Boolean(holder.predicate(worker));
        } catch (error) {
          lose(
            holder,
            new LeaseLostError(uid, 'updated', `the predicate threw on its update: ${messageOf(error)}`, {
              cause: error,
            }),
          );
          return;
        }
        if (!passes) lose(holder, new LeaseLostError(uid, 'updated', 'its update no longer passes the predicate'));
        return;
      }
      case 'worker-dropped': {
        live.delete(uid);
        queue.remove(same);
        const holder = held.get(uid);
        if (holder === undefined) return;
        held.delete(uid);
        lose(holder, new LeaseLostError(uid, 'dropped', 'the worker was dropped'));
        return;
      }
      default:
        throw new TypeError(`leaseWorkers: unknown event type ${describeValue((event as { type?: unknown }).type)}`);
    }
  };

  const grant = (worker: WorkerInfo, predicate: WorkerPredicate): WorkerLease => {
    const { uid } = worker;
    const holder: Holder = { predicate, controller: new AbortController() };
    held.set(uid, holder);
    let released = false;
    const release = (): void => {
      if (released) return;
      released = true;
      // Dropped meanwhile (or the pool ended): there is nothing to give back.
      if (held.get(uid) !== holder) return;
      held.delete(uid);
      const latest = live.get(uid);
      if (latest !== undefined && ended === undefined) queue.tryPut(latest);
    };
    return Object.freeze({ worker, lost: holder.controller.signal, release, [Symbol.dispose]: release });
  };

  const lease = (predicate: WorkerPredicate = any): Observable<WorkerLease> => {
    checkPredicate(predicate);
    return new Observable<WorkerLease>((subscriber) => {
      if (ended !== undefined) {
        subscriber.error(ended);
        return undefined;
      }
      return queue.take(predicate).subscribe({
        next: (worker) => {
          subscriber.next(grant(worker, predicate));
          subscriber.complete();
        },
        error: (error: unknown) => subscriber.error(error),
        complete: () => subscriber.error(ended ?? new QueueClosedError()),
      });
    });
  };

  const acquire = (predicate: WorkerPredicate = any, options: AcquireOptions = {}): Promise<WorkerLease> => {
    if (typeof predicate !== 'function') {
      return Promise.reject(
        new TypeError(`leaseWorkers: predicate must be a function, got ${describeValue(predicate)}`),
      );
    }
    if (options === null || typeof options !== 'object') {
      return Promise.reject(
        new TypeError(`leaseWorkers: acquire options must be an object, got ${describeValue(options)}`),
      );
    }
    const { signal } = options;
    if (signal !== undefined && !isAbortSignal(signal)) {
      return Promise.reject(new TypeError(`leaseWorkers: signal must be an AbortSignal, got ${describeValue(signal)}`));
    }
    return new Promise<WorkerLease>((resolve, reject) => {
      if (signal?.aborted === true) {
        // Like fetch() and events.once(): reject with the signal's reason as is.
        // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
        reject(signal.reason);
        return;
      }
      const onAbort = (): void => {
        waiting.unsubscribe();
        // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
        reject(signal?.reason);
      };
      const waiting = lease(predicate).subscribe({
        next: (granted) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(granted);
        },
        error: (error: unknown) => {
          signal?.removeEventListener('abort', onAbort);
          // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
          reject(error);
        },
      });
      if (!waiting.closed) signal?.addEventListener('abort', onAbort, { once: true });
    });
  };

  const close = (): void =>
    end(new QueueClosedError(undefined, 'leaseWorkers: the pool was closed; no worker can be acquired'));

  source.add(
    events$.subscribe({
      next: (item) => {
        if (ended !== undefined) return;
        try {
          onItem(item);
        } catch (error) {
          end(
            new QueueClosedError(
              { cause: error },
              `leaseWorkers: the worker source sent a bad event (${messageOf(error)}); no worker can be acquired`,
            ),
          );
        }
      },
      error: (error: unknown) =>
        end(
          new QueueClosedError(
            { cause: error },
            `leaseWorkers: the worker source failed (${messageOf(error)}); no worker can be acquired`,
          ),
        ),
      complete: () =>
        end(new QueueClosedError(undefined, 'leaseWorkers: the worker source completed; no worker can be acquired')),
    }),
  );

  return Object.freeze({
    acquire,
    lease,
    get available(): readonly WorkerInfo[] {
      return queue.items;
    },
    get closed(): boolean {
      return ended !== undefined;
    },
    close,
    [Symbol.dispose]: close,
  });
}
