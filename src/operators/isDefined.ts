/**
 * A type guard for `filter`: keeps the values a step function produced and
 * drops the `undefined` it returns for "nothing to emit".
 * @internal
 * @param value A step's result.
 * @returns Whether `value` is not `undefined`.
 */
export function isDefined<T>(value: T | undefined): value is T {
  return value !== undefined;
}
