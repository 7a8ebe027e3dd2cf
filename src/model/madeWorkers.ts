/**
 * Workers made by {@link workerInfo} (or adopted by
 * {@link ownedWorkerInfo}): valid and deeply frozen, so re-checking one
 * costs a lookup.
 * @internal
 */
export const madeWorkers = new WeakSet<object>();
