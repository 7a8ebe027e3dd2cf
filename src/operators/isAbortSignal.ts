/**
 * Whether `value` can stand in for an `AbortSignal`: checked by shape, not
 * `instanceof`, so that a signal from another realm (an Electron renderer, a
 * polyfill) is accepted.
 * @internal
 */
export function isAbortSignal(value: unknown): value is AbortSignal {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as Partial<AbortSignal>).aborted === 'boolean' &&
    typeof (value as Partial<AbortSignal>).addEventListener === 'function'
  );
}
