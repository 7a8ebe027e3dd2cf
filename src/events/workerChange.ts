import { sameWorker } from '../model/sameWorker.js';
import type { WorkerInfo } from '../model/types.js';

/**
 * Which event a worker's metadata is, given what a subscriber was told of
 * its uid: the one rule every ledger of woolrx applies (see
 * `WorkerLedger`) — an unknown uid is `worker-added`; a known one is
 * `worker-updated` only when the metadata really changed (`!sameWorker`),
 * otherwise nothing.
 *
 * @example
 * workerChange(undefined, worker); // 'worker-added'
 * workerChange(worker, worker); // undefined
 *
 * @param before The metadata last reported for the uid, or `undefined` if the subscriber does not know it.
 * @param worker The worker's current metadata.
 * @returns The event's type, or `undefined` when nothing changed.
 * @internal
 */
export function workerChange(
  before: WorkerInfo | undefined,
  worker: WorkerInfo,
): 'worker-added' | 'worker-updated' | undefined {
  if (before === undefined) return 'worker-added';
  return before === worker || sameWorker(before, worker) ? undefined : 'worker-updated';
}
