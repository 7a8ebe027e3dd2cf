import { discoveryEvent } from '../events/discoveryEvent.js';
import type { DiscoveryEvent } from '../events/types.js';
import type { WorkerInfo } from '../model/types.js';

/**
 * A `worker-dropped` event, for marble value maps.
 * @example expectObservable(events).toBe('a', { a: dropped(testWorker(1)) });
 * @param worker The worker.
 * @returns The event.
 */
export function dropped(worker: WorkerInfo): DiscoveryEvent {
  return discoveryEvent('worker-dropped', worker);
}
