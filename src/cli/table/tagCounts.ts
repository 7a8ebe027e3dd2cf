import type { TableState } from './types.js';

/**
 * How many live workers carry each tag, tags in alphabetical order; workers
 * without a tag are counted under `''`.
 *
 * @example
 * tagCounts(state); // [['cpu', 2], ['gpu', 1]]
 *
 * @param state The table.
 * @returns `[tag, count]` pairs.
 */
export function tagCounts(state: TableState): [string, number][] {
  const counts = new Map<string, number>();
  for (const { worker } of state.values()) {
    const tags = worker.tags.length === 0 ? [''] : worker.tags;
    for (const tag of tags) counts.set(tag, (counts.get(tag) ?? 0) + 1);
  }
  return [...counts].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}
