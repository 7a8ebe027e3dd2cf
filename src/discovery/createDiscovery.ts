import { filter, Observable, type SchedulerLike, type Subject, type TeardownLogic } from 'rxjs';
import { SYNCED } from '../events/discoveryEvent.js';
import type { DiscoveryEvent, DiscoveryItem, WorkerSnapshot } from '../events/types.js';
import { describeValue } from '../model/describeValue.js';
import type { WorkerInfo, WorkerPredicate } from '../model/types.js';
import { filterWorkersStep } from '../operators/filterWorkers.js';
import { stepOperator } from '../operators/stepOperator.js';
import { syncedSnapshots } from '../operators/syncedSnapshots.js';
import type { DiscoverySink } from './DiscoverySink.js';
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

const isEvent = (item: DiscoveryItem): item is DiscoveryEvent => item.type !== 'synced';

function checkFilter(filter: unknown): void {
  if (filter !== undefined && typeof filter !== 'function') {
    throw new TypeError(`events: filter must be a function, got ${describeValue(filter)}`);
  }
}

/**
 * Builds a {@link Discovery} from a backend's watch and publisher: the one
 * place where `watch(filter)`, `events(filter)`, `snapshots(filter)` and the
 * cold, per-subscription lifecycle are written, so they mean the same on
 * every backend.
 * @internal Used by every backend factory.
 * @param parts The backend's watch, publisher factory and diagnostics.
 * @returns A frozen discovery.
 */
export function createDiscovery(parts: DiscoveryParts): Discovery {
  const raw = new Observable<DiscoveryItem>((subscriber) => {
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
  const watch = (predicate: WorkerPredicate | undefined): Observable<DiscoveryItem> => {
    checkFilter(predicate);
    if (predicate === undefined) return raw;
    return raw.pipe(
      stepOperator(
        () => new Map<string, WorkerInfo>(),
        (passing, item: DiscoveryItem) => (isEvent(item) ? filterWorkersStep(passing, predicate, item) : item),
      ),
    );
  };
  return Object.freeze({
    namespace: parts.namespace,
    watch,
    events: (predicate?: WorkerPredicate): Observable<DiscoveryEvent> => watch(predicate).pipe(filter(isEvent)),
    snapshots(predicate?: WorkerPredicate, scheduler?: SchedulerLike): Observable<WorkerSnapshot> {
      checkFilter(predicate);
      return raw.pipe(syncedSnapshots(predicate, scheduler));
    },
    publisher: () => parts.publisher(),
    diagnostics: parts.diagnostics.asObservable(),
  });
}
