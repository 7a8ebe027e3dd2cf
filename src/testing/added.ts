import { discoveryEvent } from '../events/discoveryEvent.js';
import type { DiscoveryEvent } from '../events/types.js';
import type { WorkerInfo } from '../model/types.js';

/**
 * A `worker-added` event, for marble value maps.
 * @example expectObservable(events).toBe('a', { a: added(testWorker(1)) });
 * @param worker The worker.
 * @returns The event.
 */
export function added(worker: WorkerInfo): DiscoveryEvent {
  return discoveryEvent('worker-added', worker);
}
