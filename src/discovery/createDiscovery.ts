import { Observable, type Subject, type TeardownLogic } from 'rxjs';
import { SYNCED } from '../events/discoveryEvent.js';
import type { DiscoveryItem } from '../events/types.js';
import { discoveryReader } from './discoveryReader.js';
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

/**
 * Builds a {@link Discovery} from a backend's watch and publisher: the one
 * place where the cold, per-subscription lifecycle is written (and, through
 * `discoveryReader`, `watch(filter)`, `events(filter)` and
 * `snapshots(filter)`), so they mean the same on every backend.
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
  return Object.freeze({
    namespace: parts.namespace,
    ...discoveryReader(raw, parts.diagnostics.asObservable()),
    publisher: () => parts.publisher(),
  });
}
