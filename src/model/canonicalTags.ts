/**
 * Whether tags are in the form `workerInfo()` makes of them — strings,
 * sorted, without duplicates — so that a decoder may keep its own array.
 * @param tags A worker's tags.
 * @returns `true` when canonical.
 * @internal
 */
export function canonicalTags(tags: readonly unknown[]): boolean {
  let previous: string | undefined;
  for (const tag of tags) {
    if (typeof tag !== 'string') return false;
    if (previous !== undefined && !(previous < tag)) return false;
    previous = tag;
  }
  return true;
}
