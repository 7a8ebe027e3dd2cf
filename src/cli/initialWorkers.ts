import {
  asyncScheduler,
  combineLatest,
  defer,
  filter,
  last,
  map,
  merge,
  mergeMap,
  scan,
  startWith,
  take,
  takeWhile,
  throwError,
  timer,
} from 'rxjs';
import type { Observable, SchedulerLike } from 'rxjs';
import type { Discovery, DiscoveryDiagnostic } from '../discovery/types.js';
import type { DiscoveryEvent, DiscoveryItem } from '../events/types.js';
import type { WorkerInfo, WorkerPredicate } from '../model/types.js';
import { BackendUnreachable } from './BackendUnreachable.js';

/** Options of {@link initialWorkers}. */
export interface InitialWorkersOptions {
  readonly filter?: WorkerPredicate | undefined;
  readonly timeoutMs?: number | undefined;
  readonly scheduler?: SchedulerLike;
}

/** A diagnostic that says the backend cannot be reached (a warning carrying the error), as opposed to a note. */
function isFailure(diagnostic: DiscoveryDiagnostic): boolean {
  return diagnostic.kind === 'warning' && diagnostic.error !== undefined;
}

/**
 * The workers of a discovery's complete initial state (up to `synced`), as
 * one array — what `woolrx list` prints. A backend that retries forever
 * while it cannot be reached (etcd) would make that wait endless: with
 * `timeoutMs`, the stream errors with {@link BackendUnreachable} once
 * `timeoutMs` have passed while the backend's last reported failure is not
 * followed by a `recovered` diagnostic (at the deadline, or at the first
 * failure after it). A backend that answers but takes longer than
 * `timeoutMs` to deliver a large namespace is not cut short.
 *
 * @example
 * const workers = await firstValueFrom(initialWorkers(discovery, { timeoutMs: 10_000 }));
 *
 * @param discovery The discovery to read.
 * @param options `filter`: only workers passing it; `timeoutMs`: how long
 * the backend may fail to answer (no limit when absent); `scheduler`: the
 * deadline's scheduler.
 * @returns One array of workers, then completion.
 */
export function initialWorkers(discovery: Discovery, options: InitialWorkersOptions = {}): Observable<WorkerInfo[]> {
  const { filter: predicate, timeoutMs, scheduler = asyncScheduler } = options;
  const initial = defer(() => {
    const workers = new Map<string, WorkerInfo>();
    return discovery.watch(predicate).pipe(
      takeWhile((item: DiscoveryItem): item is DiscoveryEvent => item.type !== 'synced'),
      scan((_, event) => {
        if (event.type === 'worker-dropped') workers.delete(event.worker.uid);
        else workers.set(event.worker.uid, event.worker);
        return workers;
      }, workers),
      last(undefined, workers),
      map(() => [...workers.values()]),
    );
  });
  if (timeoutMs === undefined) return initial;
  // The failure the backend reports and has not recovered from, if any.
  const failing = discovery.diagnostics.pipe(
    filter((diagnostic) => diagnostic.kind === 'recovered' || isFailure(diagnostic)),
    map((diagnostic) => (diagnostic.kind === 'recovered' ? undefined : diagnostic)),
    startWith(undefined),
  );
  const giveUp = combineLatest([failing, timer(timeoutMs, scheduler)]).pipe(
    map(([failure]) => failure),
    filter((failure): failure is DiscoveryDiagnostic => failure !== undefined),
    take(1),
    mergeMap((failure) => throwError(() => new BackendUnreachable(failure, timeoutMs))),
  );
  // The diagnostics first: a backend may report while the watch starts.
  return merge(giveUp, initial).pipe(take(1));
}
