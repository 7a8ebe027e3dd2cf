import { filter, Observable, type SchedulerLike, type Subject, type TeardownLogic } from 'rxjs';
import type { DiscoveryEvent, WorkerSnapshot } from '../events/types.js';
import { describeValue } from '../model/describeValue.js';
import type { WorkerPredicate } from '../model/types.js';
import { filterWorkers } from '../operators/filterWorkers.js';
import type { DiscoverySink } from './DiscoverySink.js';
import { SYNCED, syncedSnapshots, type SyncedItem } from './syncedSnapshots.js';
import type { Discovery, DiscoveryDiagnostic, WorkerPublisher } from './types.js';

/** What a backend gives {@link createDiscovery}. @internal */
export interface DiscoveryParts {
  /** The namespace. */
  readonly namespace: string;
  /**
   * Starts one subscription's watch: report every current worker, then
   * `synced()`, then changes, to `sink`. Called once per subscription.
   * @returns What stops the watch and releases everything it holds.
   */
  watch(sink: DiscoverySink): TeardownLogic;
  /** Makes a new publisher. */
  publisher(): WorkerPublisher;
  /** The discovery's diagnostics. */
  readonly diagnostics: Subject<DiscoveryDiagnostic>;
}

const isEvent = (item: SyncedItem): item is DiscoveryEvent => item !== SYNCED;

function checkFilter(filter: unknown): void {
  if (filter !== undefined && typeof filter !== 'function') {
    throw new TypeError(`events: filter must be a function, got ${describeValue(filter)}`);
  }
}

/**
 * Builds a {@link Discovery} from a backend's watch and publisher: the one
 * place where `events(filter)`, `snapshots(filter)` and the cold,
 * per-subscription lifecycle are written, so they mean the same on every
 * backend.
 * @internal Used by every backend factory.
 * @param parts The backend's watch, publisher factory and diagnostics.
 * @returns A frozen discovery.
 */
export function createDiscovery(parts: DiscoveryParts): Discovery {
  const raw = new Observable<SyncedItem>((subscriber) => {
    let synced = false;
    const sink: DiscoverySink = {
      next: (event) => subscriber.next(event),
      synced: () => {
        if (synced) return;
        synced = true;
        subscriber.next(SYNCED);
      },
      error: (error) => subscriber.error(error),
      get closed() {
        return subscriber.closed;
      },
    };
    return parts.watch(sink);
  });
  const all = raw.pipe(filter(isEvent));
  return Object.freeze({
    namespace: parts.namespace,
    events(predicate?: WorkerPredicate): Observable<DiscoveryEvent> {
      checkFilter(predicate);
      return predicate === undefined ? all : all.pipe(filterWorkers(predicate));
    },
    snapshots(predicate?: WorkerPredicate, scheduler?: SchedulerLike): Observable<WorkerSnapshot> {
      checkFilter(predicate);
      return raw.pipe(syncedSnapshots(predicate, scheduler));
    },
    publisher: () => parts.publisher(),
    diagnostics: parts.diagnostics.asObservable(),
  });
}
