import { filter, take, type Observable, type OperatorFunction } from 'rxjs';
import { describeValue } from '../model/describeValue.js';
import { EXCLUSIVE_TAKE, type ExclusiveTakeSource } from './exclusiveTake.js';

/**
 * Takes the first `count` items that satisfy `predicate` — exclusively when
 * the source is a {@link PredicatedQueue}: no other taker gets them.
 *
 * ```
 * put:               --a--G--b--H-------|   (G, H are tagged 'gpu'; | is close())
 * take(isGpu) #1:    ^----(G|)
 * take(isGpu) #2:    ^----------(H|)        (#1 subscribed first, so it got G)
 * take(any, 2):      --------------^(ab|)   (a, b were kept until someone wanted them)
 * ```
 *
 * On a {@link PredicatedQueue} each subscription is a *taker*:
 *
 * - It receives queued items it accepts (oldest first), then new ones as
 *   they are put, up to `count`, then completes.
 * - Each item goes to at most one taker; among takers that accept an item,
 *   the earliest subscribed gets it. Items no taker accepts stay queued.
 * - An item leaves the queue only when delivered: unsubscribing loses none.
 * - A throwing predicate errors this taker only; the item stays queued.
 * - If the queue is closed, the taker completes once no queued item is left
 *   for it; if it failed, the taker errors.
 *
 * On any other Observable it is exactly `filter(predicate)` then
 * `take(count)` (the predicate gets only the item, no index): nothing is
 * shared, so there is nothing to be exclusive about. A source is recognised
 * as exclusive by a registered symbol rather than `instanceof`, so queues
 * from another copy of woolrx in the same program are recognised too.
 *
 * @example Borrow one worker tagged 'gpu' from a pool
 * ```ts
 * const pool = new PredicatedQueue<WorkerInfo>();
 * discovery.events().subscribe((event) => {
 *   if (event.type === 'worker-added') pool.tryPut(event.worker);
 *   if (event.type === 'worker-dropped') pool.remove((w) => w.uid === event.worker.uid);
 * });
 *
 * const gpu = await firstValueFrom(
 *   pool.pipe(predicatedTake((w) => w.tags.includes('gpu'))),
 * );
 * // No concurrent borrower can get `gpu` until it is put back:
 * pool.tryPut(gpu);
 * ```
 *
 * @param predicate Called with each candidate item; a truthy result takes it.
 * @param count How many items to take before completing: a positive integer
 * or `Infinity`. Defaults to 1.
 * @returns An operator emitting the taken items, then completing.
 * @throws TypeError naming the value if `predicate` is not a function or
 * `count` is not a positive integer or `Infinity`.
 */
export function predicatedTake<T, S extends T>(
  predicate: (item: T) => item is S,
  count?: number,
): OperatorFunction<T, S>;
export function predicatedTake<T>(predicate: (item: T) => boolean, count?: number): OperatorFunction<T, T>;
export function predicatedTake<T>(predicate: (item: T) => boolean, count = 1): OperatorFunction<T, T> {
  if (typeof predicate !== 'function') {
    throw new TypeError(`predicatedTake: predicate must be a function, got ${describeValue(predicate)}`);
  }
  if (!(count === Infinity || (Number.isSafeInteger(count) && count > 0))) {
    throw new TypeError(
      `predicatedTake: count must be a positive integer or Infinity, got ${describeValue(count)}`,
    );
  }
  const test = (item: T): boolean => Boolean(predicate(item));
  return (source: Observable<T>): Observable<T> =>
    isExclusive(source)
      ? source[EXCLUSIVE_TAKE](test, count)
      : source.pipe(filter(test), take(count));
}

function isExclusive<T>(source: Observable<T>): source is Observable<T> & ExclusiveTakeSource<T> {
  return typeof (source as Partial<ExclusiveTakeSource<T>>)[EXCLUSIVE_TAKE] === 'function';
}
