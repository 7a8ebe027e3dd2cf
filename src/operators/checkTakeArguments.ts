import { describeValue } from '../model/describeValue.js';

/**
 * Validates the arguments of a predicated take.
 * @internal
 * @param name The caller, for the message (`predicatedTake`, `PredicatedQueue.take`).
 * @param predicate Must be a function.
 * @param count Must be a positive integer or `Infinity`.
 * @throws {TypeError} Naming the bad value.
 */
export function checkTakeArguments(name: string, predicate: unknown, count: unknown): void {
  if (typeof predicate !== 'function') {
    throw new TypeError(`${name}: predicate must be a function, got ${describeValue(predicate)}`);
  }
  if (!(count === Infinity || (Number.isSafeInteger(count) && (count as number) > 0))) {
    throw new TypeError(`${name}: count must be a positive integer or Infinity, got ${describeValue(count)}`);
  }
}
