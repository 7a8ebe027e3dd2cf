import { DROP_REASONS, isDropReason } from './isDropReason.js';
import { isDiscoveryEventType } from './isDiscoveryEventType.js';
import { describeValue } from '../model/describeValue.js';
import type { WorkerInfo } from '../model/types.js';
import type { DiscoveryEvent, DiscoveryEventType, DiscoverySynced, DropReason } from './types.js';

/**
 * Builds a frozen {@link DiscoveryEvent}.
 *
 * @example
 * discoveryEvent('worker-added', worker); // { type: 'worker-added', worker }
 * discoveryEvent('worker-dropped', worker, 'expired'); // { type: 'worker-dropped', worker, reason: 'expired' }
 *
 * @param type `'worker-added'`, `'worker-updated'` or `'worker-dropped'`.
 * @param worker The worker concerned.
 * @param reason Why a `worker-dropped` happened, when known.
 * @returns The event.
 * @throws {TypeError} Naming the bad type.
 */
export function discoveryEvent(type: DiscoveryEventType, worker: WorkerInfo, reason?: DropReason): DiscoveryEvent {
  if (!isDiscoveryEventType(type)) {
    throw new TypeError(
      `Invalid discovery event type: ${describeValue(type)} (expected worker-added, worker-updated or worker-dropped)`,
    );
  }
  if (reason === undefined) return Object.freeze({ type, worker });
  if (type !== 'worker-dropped' || !isDropReason(reason)) {
    const why =
      type === 'worker-dropped'
        ? ` (expected ${DROP_REASONS.join(', ')})`
        : ` on a ${type} event (only worker-dropped has one)`;
    throw new TypeError(`Invalid drop reason: ${describeValue(reason)}${why}`);
  }
  return Object.freeze({ type, worker, reason });
}

/** The one {@link DiscoverySynced} item (frozen). @internal */
export const SYNCED: DiscoverySynced = Object.freeze({ type: 'synced' });
