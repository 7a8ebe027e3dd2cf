import type { WorkerInfo } from '../model/types.js';

/** The three kinds of worker event. */
export type DiscoveryEventType = 'worker-added' | 'worker-updated' | 'worker-dropped';

/**
 * One change to the set of known workers. Plain data: safe to
 * `structuredClone`, `postMessage`, send over IPC or `JSON.stringify`.
 *
 * - `worker-added`: a worker became known (every subscription starts with
 *   one per current worker).
 * - `worker-updated`: a known worker's metadata really changed.
 * - `worker-dropped`: a worker went away; `worker` is its last metadata.
 */
export interface DiscoveryEvent {
  /** What happened to the worker. */
  readonly type: DiscoveryEventType;
  /** The worker's metadata: the new one, or for `worker-dropped` its last one. */
  readonly worker: WorkerInfo;
}

/**
 * The item {@link Discovery.watch} emits, once, when the subscription's
 * initial state is complete: every worker registered when it started has
 * been reported (there may be none). Plain data, like a {@link DiscoveryEvent}.
 */
export interface DiscoverySynced {
  /** Always `'synced'`. */
  readonly type: 'synced';
}

/** What {@link Discovery.watch} emits: the events, and one {@link DiscoverySynced}. */
export type DiscoveryItem = DiscoveryEvent | DiscoverySynced;

/** The current workers by uid, as {@link toSnapshots} emits and {@link diffSnapshots} reads. */
export type WorkerSnapshot = ReadonlyMap<string, WorkerInfo>;
