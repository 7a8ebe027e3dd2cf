import { discoveryEvent } from '../events/discoveryEvent.js';
import type { DiscoveryEvent } from '../events/types.js';
import type { WorkerInfo } from '../model/types.js';

/**
 * A `worker-updated` event, for marble value maps.
 * @example expectObservable(events).toBe('a', { a: updated(testWorker(1, { version: "2" })) });
 * @param worker The worker.
 * @returns The event.
 */
export function updated(worker: WorkerInfo): DiscoveryEvent {
  return discoveryEvent('worker-updated', worker);
}
