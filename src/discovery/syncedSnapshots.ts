import { asapScheduler, auditTime, defer, filter, map, type OperatorFunction, type SchedulerLike } from 'rxjs';
import type { DiscoveryEvent, WorkerSnapshot } from '../events/types.js';
import type { WorkerPredicate } from '../model/types.js';
import { WorkerLedger } from './WorkerLedger.js';

/** The marker a discovery's raw stream carries once its initial state is complete. @internal */
export const SYNCED: unique symbol = Symbol('woolrx.synced');
/** A discovery's raw stream: events, and one {@link SYNCED} marker. @internal */
export type SyncedItem = DiscoveryEvent | typeof SYNCED;

/**
 * Folds a discovery's raw stream (events plus one `SYNCED` marker) into
 * snapshots of the current workers: nothing until the marker, then the
 * initial state (empty when the pool is empty), then one snapshot per
 * synchronous burst of changes.
 *
 * ```
 * source:   --a--b--S-----c--(de)--|      S = SYNCED
 * result:   --------A-----B--C-----|      A = {a, b}, B = {a, b, c}, C = after d and e
 * empty:    -----S---a--|
 * result:   -----E---F--|                 E = {} ("no workers", not "loading")
 * ```
 *
 * With `predicate`, the snapshots hold only the workers that pass it
 * (evaluated on every add and update, like {@link filterWorkers}).
 * A burst whose changes cancel out may emit a snapshot equal to the last.
 * @internal Used by {@link createDiscovery} for `Discovery.snapshots()`.
 * @param predicate Only workers passing it; `undefined` for all.
 * @param scheduler Where a burst's flush runs; `asapScheduler` (one
 * microtask: one burst, one snapshot) by default.
 * @returns The operator.
 */
export function syncedSnapshots(
  predicate: WorkerPredicate | undefined,
  scheduler: SchedulerLike = asapScheduler,
): OperatorFunction<SyncedItem, WorkerSnapshot> {
  return (source) =>
    defer(() => {
      const ledger = new WorkerLedger();
      let synced = false;
      // True when the item changes what a synced subscriber must be shown.
      const step = (item: SyncedItem): boolean => {
        if (item === SYNCED) {
          if (synced) return false;
          synced = true;
          return true;
        }
        const { worker } = item;
        const keep = item.type !== 'worker-dropped' && (predicate === undefined || Boolean(predicate(worker)));
        const change = keep ? ledger.put(worker) : ledger.drop(worker.uid);
        return synced && change !== undefined;
      };
      return source.pipe(
        filter(step),
        auditTime(0, scheduler),
        map(() => ledger.snapshot()),
      );
    });
}
