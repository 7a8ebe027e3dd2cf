import type { DropReason } from './types.js';

/** Every {@link DropReason}, in the order the docs list them. @internal */
export const DROP_REASONS: readonly DropReason[] = Object.freeze(['withdrawn', 'process-gone', 'expired', 'malformed']);

const REASONS: ReadonlySet<unknown> = new Set(DROP_REASONS);

/**
 * Whether a value is a {@link DropReason}.
 *
 * @example
 * isDropReason('expired'); // true
 *
 * @param value Anything.
 * @returns `true` for `'withdrawn'`, `'process-gone'`, `'expired'` or `'malformed'`.
 */
export function isDropReason(value: unknown): value is DropReason {
  return REASONS.has(value);
}
