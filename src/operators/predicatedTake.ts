import { filter, take, type Observable, type OperatorFunction } from 'rxjs';
import { checkTakeArguments } from './checkTakeArguments.js';

/**
 * Emits the first `count` items that satisfy `predicate`, then completes:
 * `filter(predicate)` then `take(count)`, with a type guard narrowing the
 * result.
 *
 * <span class="informal">An ordinary operator: it behaves the same on any
 * source. To hand each item to exactly one of several takers, take from a
 * {@link PredicatedQueue} with its `take` method instead.</span>
 *
 * ```
 * source:            -a-B-c-D-E-|
 * predicatedTake(isUpper, 2)
 * result:            ---B---(D|)
 * ```
 *
 * The predicate is called with the item only (no index, unlike `filter`).
 *
 * @example The first two GPU workers to appear
 * ```ts
 * discovery.events().pipe(
 *   filter((event) => event.type === 'worker-added'),
 *   map((event) => event.worker),
 *   predicatedTake((w) => w.tags.includes('gpu'), 2),
 * );
 * ```
 *
 * @param predicate Called with each item; a truthy result takes it. A type
 * guard narrows the result's item type.
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
  checkTakeArguments('predicatedTake', predicate, count);
  const test = (item: T): boolean => Boolean(predicate(item));
  return (source: Observable<T>): Observable<T> => source.pipe(filter(test), take(count));
}
