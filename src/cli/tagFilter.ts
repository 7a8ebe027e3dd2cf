import type { WorkerPredicate } from '../model/types.js';
import { flagValues } from './flagValues.js';
import type { CliFlag, CliValues } from './types.js';
import { UsageError } from './UsageError.js';

/** The `--tag` flag of `list` and `watch`. */
export const TAG_FILTER_FLAG: CliFlag = Object.freeze({
  type: 'string',
  multiple: true,
  valueName: 'TAG',
  description: 'Only workers having this tag; with several, workers having all of them',
});

/**
 * The worker filter of `--tag` (`list`, `watch`): a worker passes when it has
 * every tag given; `undefined` when no `--tag` was given.
 *
 * @example
 * discovery.watch(tagFilter({ tag: ['gpu', 'eu'] })); // workers tagged gpu and eu
 *
 * @param values The parsed flags.
 * @returns The predicate, or `undefined` for every worker.
 * @throws {UsageError} For an empty tag.
 */
export function tagFilter(values: CliValues): WorkerPredicate | undefined {
  const tags = flagValues.list(values, 'tag');
  if (tags.length === 0) return undefined;
  if (tags.some((tag) => tag === '')) throw new UsageError('--tag needs a non-empty tag');
  return (worker) => tags.every((tag) => worker.tags.includes(tag));
}
