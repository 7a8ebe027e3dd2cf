import { isDiscoveryEventType } from './isDiscoveryEventType.js';
import { describeValue } from '../model/describeValue.js';
import type { WorkerInfo } from '../model/types.js';
import type { DiscoveryEvent, DiscoveryEventType, DiscoverySynced } from './types.js';

/**
 * Builds a frozen {@link DiscoveryEvent}.
 *
 * @example
 * discoveryEvent('worker-added', worker); // { type: 'worker-added', worker }
 *
 * @param type `'worker-added'`, `'worker-updated'` or `'worker-dropped'`.
 * @param worker The worker concerned.
 * @returns The event.
 * @throws {TypeError} Naming the bad type.
 */
export function discoveryEvent(type: DiscoveryEventType, worker: WorkerInfo): DiscoveryEvent {
  if (!isDiscoveryEventType(type)) {
    throw new TypeError(
      `Invalid discovery event type: ${describeValue(type)} (expected worker-added, worker-updated or worker-dropped)`,
    );
  }
  return Object.freeze({ type, worker });
}

/** The one {@link DiscoverySynced} item (frozen). @internal */
export const SYNCED: DiscoverySynced = Object.freeze({ type: 'synced' });
