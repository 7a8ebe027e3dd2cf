import { filter, type Observable, type SchedulerLike } from 'rxjs';
import type { DiscoveryEvent, DiscoveryItem, WorkerSnapshot } from '../events/types.js';
import { describeValue } from '../model/describeValue.js';
import type { WorkerInfo, WorkerPredicate } from '../model/types.js';
import { filterWorkersStep } from '../operators/filterWorkers.js';
import { stepOperator } from '../operators/stepOperator.js';
import { syncedSnapshots } from '../operators/syncedSnapshots.js';
import type { DiscoveryDiagnostic, DiscoveryReader } from './types.js';

const isEvent = (item: DiscoveryItem): item is DiscoveryEvent => item.type !== 'synced';

function checkFilter(filter: unknown): void {
  if (filter !== undefined && typeof filter !== 'function') {
    throw new TypeError(`events: filter must be a function, got ${describeValue(filter)}`);
  }
}

/**
 * The read contract of a discovery built from one cold stream of items (a
 * subscription's events, with one `synced` once its initial state is
 * complete): the one place where `watch(filter)`, `events(filter)` and
 * `snapshots(filter)` are derived, so they mean the same on every backend
 * and across the bridge.
 * @internal Used by `createDiscovery` and by the bridge's `discoveryFrom`.
 *
 * @example
 * const reader = discoveryReader(rawItems$, diagnostics$);
 * reader.snapshots((w) => w.tags.includes('gpu')).subscribe(render);
 *
 * @param raw The unfiltered items, one watch per subscription.
 * @param diagnostics The diagnostics stream to expose.
 * @returns A frozen reader.
 */
export function discoveryReader(
  raw: Observable<DiscoveryItem>,
  diagnostics: Observable<DiscoveryDiagnostic>,
): DiscoveryReader {
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
    watch,
    events: (predicate?: WorkerPredicate): Observable<DiscoveryEvent> => watch(predicate).pipe(filter(isEvent)),
    snapshots(predicate?: WorkerPredicate, scheduler?: SchedulerLike): Observable<WorkerSnapshot> {
      checkFilter(predicate);
      return raw.pipe(syncedSnapshots(predicate, scheduler));
    },
    diagnostics,
  });
}
