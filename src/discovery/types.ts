import type { Observable } from 'rxjs';
import type { DiscoveryEvent, DiscoveryEventType } from '../events/types.js';
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
  /** What happened. */
  readonly kind: 'malformed-record' | 'warning' | 'recovered';
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
 * Publishes workers into one namespace of one backend. Disposing it
 * (`await using`, `close()`) withdraws every worker it published.
 *
 * Semantics, the same on every backend:
 * - `worker-added` registers a worker; for a uid already registered it
 *   refreshes it in place and subscribers see one `worker-updated` (or
 *   nothing, when the metadata is unchanged).
 * - `worker-updated` replaces a registered worker's metadata; for an unknown
 *   uid it rejects with {@link WorkerNotFoundError}.
 * - `worker-dropped` withdraws a worker; for an unknown uid it is a no-op.
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
  /** Withdraws every worker this publisher registered, then closes it. Idempotent. */
  close(): Promise<void>;
}

/**
 * A discovery backend bound to one namespace — the contract every backend
 * (memory, local, lan, etcd) implements.
 */
export interface Discovery {
  /** The namespace this discovery watches and publishes to. */
  readonly namespace: string;
  /**
   * A cold stream of worker events. Nothing happens until subscription;
   * each subscriber first receives `worker-added` for every current worker
   * (in one synchronous burst), then deltas; unsubscribing releases every
   * resource the subscription held.
   * @param filter Only workers passing it, with in/out transitions as
   * {@link filterWorkers} describes.
   */
  events(filter?: WorkerPredicate): Observable<DiscoveryEvent>;
  /** A new publisher for this namespace. Connects lazily, on first publish. */
  publisher(): WorkerPublisher;
  /** Hot stream of diagnostics from this discovery's subscriptions and publishers. */
  readonly diagnostics: Observable<DiscoveryDiagnostic>;
}
