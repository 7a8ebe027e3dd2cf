import type { DiscoveryEventType } from './types.js';

const TYPES: ReadonlySet<unknown> = new Set<DiscoveryEventType>(['worker-added', 'worker-updated', 'worker-dropped']);

/**
 * Whether a value is one of the three event types. The one place the set is
 * spelled out; the event factory, the publishers and the operators ask it.
 * @internal
 * @param value Anything.
 * @returns `true` for `'worker-added'`, `'worker-updated'` or `'worker-dropped'`.
 */
export function isDiscoveryEventType(value: unknown): value is DiscoveryEventType {
  return TYPES.has(value);
}
