import type { Observable, SchedulerLike } from 'rxjs';
import type { DiscoveryEvent, DiscoveryEventType, DiscoveryItem, WorkerSnapshot } from '../events/types.js';
import type { WorkerInfo, WorkerPredicate } from '../model/types.js';

// The declarations `AsyncDisposable` needs, as TypeScript's esnext.disposable
// lib and @types/node write them (identical declarations merge), so that a
// consumer whose `lib` lacks esnext.disposable (e.g. ["ES2022", "DOM"])
// type-checks woolrx's types.
declare global {
  interface SymbolConstructor {
    /** The method `await using` calls (ES2026 explicit resource management). */
    readonly asyncDispose: unique symbol;
  }
  /** An object `await using` can dispose. */
  interface AsyncDisposable {
    /** Releases the object's resources. */
    [Symbol.asyncDispose](): PromiseLike<void>;
  }
}

/**
 * Something a backend noticed that is not an event: a malformed record it
 * skipped, a warning, a recovery. Reported on {@link Discovery.diagnostics};
 * the event streams never error for these.
 */
export interface DiscoveryDiagnostic {
  /** What happened (`unauthenticated-record`: a LAN record skipped for its signature, with `signingKey`). */
  readonly kind: 'malformed-record' | 'unauthenticated-record' | 'warning' | 'recovered';
  /** The namespace concerned. */
  readonly namespace: string;
  /** Human-readable description naming the bad value. */
  readonly message: string;
  /** The worker concerned, when known. */
  readonly uid?: string;
  /** The underlying error, when there is one. */
  readonly error?: unknown;
}

/**
 * Publishes workers into one namespace of one backend.
 *
 * The contract, the same on every backend (the exceptions are stated in
 * {@link Discovery}):
 * - `worker-added` registers a worker; for a uid already registered it
 *   refreshes it in place and subscribers see one `worker-updated` (or
 *   nothing, when the metadata is unchanged).
 * - `worker-updated` replaces a registered worker's metadata; for a uid that
 *   is not registered it rejects with {@link WorkerNotFoundError} and
 *   changes nothing.
 * - `worker-dropped` withdraws a worker, whichever publisher registered it;
 *   for a uid that is not registered it is a no-op.
 * - **Ownership.** A worker belongs to the publisher that registered it
 *   (published `worker-added` while the uid was absent). Updating or
 *   re-adding a worker registered by another publisher changes its
 *   metadata, not its owner. `close()` (or `await using`) withdraws only the
 *   workers this publisher owns that are still registered.
 * - Operations of one publisher apply one at a time, in call order. Bad
 *   arguments reject with a `TypeError`; anything after `close()` rejects
 *   with {@link PublisherClosedError}.
 */
export interface WorkerPublisher extends AsyncDisposable {
  /** The namespace this publisher writes to. */
  readonly namespace: string;
  /** `true` once `close()` has been called. */
  readonly closed: boolean;
  /**
   * Publishes one change.
   * @param type What happened to the worker.
   * @param worker The worker's metadata.
   * @returns Resolves once every subscriber can see the change.
   */
  publish(type: DiscoveryEventType, worker: WorkerInfo): Promise<void>;
  /** Withdraws every worker this publisher owns that is still registered, then closes it. Idempotent. */
  close(): Promise<void>;
}

/**
 * A discovery backend bound to one namespace — the contract every backend
 * (memory, local, lan, etcd) implements, and that one test suite
 * (`test/contract`) checks on each.
 *
 * **What a subscriber is told.** `events()` is cold: nothing starts until
 * subscription, and each subscription has its own watch. It first emits one
 * `worker-added` per worker registered when it started — its *initial
 * state* — then every change: `worker-added` for a worker it has not seen,
 * `worker-updated` only when a known worker's metadata really changed
 * (`!sameWorker`), `worker-dropped` carrying the last metadata it reported.
 * Every `worker-updated` and `worker-dropped` refers to a worker the same
 * subscriber saw added. Unsubscribing releases everything the subscription
 * held, also in the middle of the initial burst.
 *
 * **When the initial state is complete.** `watch()` emits `{ type: 'synced' }`
 * exactly then, between the initial state's events and the first change;
 * `snapshots()` emits its first snapshot then — empty when the pool is
 * empty — so a user can tell "no workers" from "still loading". The initial
 * state arrives:
 * - memory, local: synchronously, inside `subscribe()`, in one burst;
 * - etcd: in one burst once the namespace has been read (one round trip);
 * - lan: as the network answers; it is complete after the first query
 *   window (`syncWindow`, default 1 s), since mDNS cannot know that no more
 *   answers will come.
 *
 * **Ownership and unknown updates** are as {@link WorkerPublisher} states,
 * on every backend but one: on lan, each publisher is the mDNS responder of
 * its own workers and announces only those, so a publisher can update or
 * drop only workers it registered (an update of any other uid rejects with
 * {@link WorkerNotFoundError}, a drop is a no-op), and a worker is withdrawn
 * when its own publisher closes.
 */
export interface Discovery extends DiscoveryReader {
  /** The namespace this discovery watches and publishes to. */
  readonly namespace: string;
  /** A new publisher for this namespace. Connects lazily, on first publish. */
  publisher(): WorkerPublisher;
}

/**
 * The read side of a {@link Discovery}: its streams, and nothing that
 * publishes. Every `Discovery` is one; so is what `discoveryFrom(port)`
 * (`woolrx/bridge`) gives a renderer, which has no backend to publish to.
 * Code that only watches workers can take a `DiscoveryReader` and work with
 * both. Its streams keep the contract stated on {@link Discovery}.
 *
 * @example
 * function showGpus(workers: DiscoveryReader): Subscription {
 *   return workers.snapshots((w) => w.tags.includes('gpu')).subscribe(render);
 * }
 */
export interface DiscoveryReader {
  /**
   * A cold stream of worker events: the initial state, then changes (see
   * {@link Discovery}).
   * @param filter Only workers passing it, with in/out transitions as
   * {@link filterWorkers} describes.
   * @throws {TypeError} When `filter` is not a function.
   */
  events(filter?: WorkerPredicate): Observable<DiscoveryEvent>;
  /**
   * The stream of {@link DiscoveryReader.events}, with one `{ type: 'synced' }`
   * item when the initial state is complete (see {@link Discovery}): for a
   * view that shows every event and also needs to tell "no workers" from
   * "still loading".
   * @param filter Only workers passing it, as for {@link DiscoveryReader.events}.
   * @throws {TypeError} When `filter` is not a function.
   */
  watch(filter?: WorkerPredicate): Observable<DiscoveryItem>;
  /**
   * A cold stream of the current workers: nothing while the initial state is
   * loading, then the initial state (an empty map when there are no
   * workers), then one snapshot per burst of changes. Each snapshot is a
   * fresh map, never mutated afterwards.
   * @param filter Only workers passing it.
   * @param scheduler Where a burst's snapshot is flushed; `asapScheduler`
   * (one microtask after the burst) by default.
   * @throws {TypeError} When `filter` is not a function.
   */
  snapshots(filter?: WorkerPredicate, scheduler?: SchedulerLike): Observable<WorkerSnapshot>;
  /** Hot stream of diagnostics from this discovery's subscriptions and publishers. */
  readonly diagnostics: Observable<DiscoveryDiagnostic>;
}
