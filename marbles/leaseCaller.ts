// One caller of a leaseWorkers pool, as a marble line: what the marble spec
// and the docs diagram of leaseWorkers both draw.
import { catchError, concat, fromEvent, map, merge, mergeMap, of, take, takeWhile, timer, type Observable } from 'rxjs';
import type { LeaseLostError } from '../src/errors/LeaseLostError.js';
import { QueueClosedError } from '../src/errors/QueueClosedError.js';
import type { WorkerInfo } from '../src/model/types.js';
import type { WorkerLeases } from '../src/operators/leaseWorkers.js';

// One letter per frame: the worker the caller was handed (by name), then `X`
// (lost: dropped), `U` (lost: updated out), `C` (lost: the pool ended), `r`
// (it released the lease); `Q` when its acquire was refused because the pool
// ended, `B` when its own predicate threw.
const LOST: Record<string, string> = { dropped: 'X', updated: 'U', closed: 'C' };

/**
 * Takes a lease from `pool` and holds it for `holdFor` frames before
 * releasing it (until it is lost if undefined), reporting what happens to it.
 * @param pool The pool.
 * @param names The marble letter of each worker object.
 * @param predicate The caller's predicate.
 * @param holdFor Frames between the grant and `release()`.
 * @returns The caller's marble line.
 */
export function leaseCaller(
  pool: WorkerLeases,
  names: ReadonlyMap<WorkerInfo, string>,
  predicate: (w: WorkerInfo) => boolean,
  holdFor?: number,
): Observable<string> {
  return pool.lease(predicate).pipe(
    mergeMap((lease) => {
      const lost$ = fromEvent(lease.lost, 'abort').pipe(
        take(1),
        map(() => LOST[(lease.lost.reason as LeaseLostError).reason] ?? '?'),
      );
      const release$ = timer(holdFor ?? 0).pipe(
        map(() => {
          lease.release();
          return 'r';
        }),
      );
      const end$ =
        holdFor === undefined ? lost$ : merge(lost$, release$).pipe(takeWhile((value) => value !== 'r', true));
      return concat(of(names.get(lease.worker) ?? '?'), end$);
    }),
    catchError((error: unknown) =>
      of(error instanceof QueueClosedError ? 'Q' : error instanceof Error && error.message === 'boom' ? 'B' : '?'),
    ),
  );
}
