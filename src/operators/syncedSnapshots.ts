import { asapScheduler, type OperatorFunction, type SchedulerLike } from 'rxjs';
import type { DiscoveryItem, WorkerSnapshot } from '../events/types.js';
import type { WorkerPredicate } from '../model/types.js';
import { batchSnapshots } from './SnapshotBatch.js';

/**
 * Folds a discovery's items (events, then one `synced`) into snapshots of
 * the current workers: nothing until `synced`, then the initial state (empty
 * when the pool is empty), then one snapshot per burst of changes that did
 * not net to nothing — {@link toSnapshots}'s rule, which this shares.
 * @internal Used by `createDiscovery` for `Discovery.snapshots()`.
 * @param predicate Only workers passing it (evaluated on every add and
 * update); `undefined` for all.
 * @param scheduler Where a burst's flush runs; `asapScheduler` (one
 * microtask: one burst, one snapshot) by default.
 */
export function syncedSnapshots(
  predicate: WorkerPredicate | undefined,
  scheduler: SchedulerLike = asapScheduler,
): OperatorFunction<DiscoveryItem, WorkerSnapshot> {
  return batchSnapshots<DiscoveryItem>(
    false,
    (batch, item) => (item.type === 'synced' ? batch.sync() : batch.record(item, predicate)),
    scheduler,
  );
}
