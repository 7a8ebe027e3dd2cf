import type { WorkerInfo } from '../model/types.js';

/** The three kinds of worker event. */
export type DiscoveryEventType = 'worker-added' | 'worker-updated' | 'worker-dropped';

/**
 * Why a worker was dropped, when the backend knows it (see
 * {@link DiscoveryEvent.reason}):
 * - `'withdrawn'`: a publisher withdrew it — a `worker-dropped` publish, a
 *   publisher closing, an mDNS goodbye (TTL 0) on lan;
 * - `'process-gone'`: its process no longer exists (local: the liveness
 *   check found its pid gone and reclaimed its slot);
 * - `'expired'`: nothing renewed it in time (lan: no announcement within
 *   `expireAfter`);
 * - `'malformed'`: its record no longer decodes (reported on `diagnostics`).
 */
export type DropReason = 'withdrawn' | 'process-gone' | 'expired' | 'malformed';

/**
 * One change to the set of known workers. Plain data: safe to
 * `structuredClone`, `postMessage`, send over IPC or `JSON.stringify`.
 *
 * - `worker-added`: a worker became known (every subscription starts with
 *   one per current worker).
 * - `worker-updated`: a known worker's metadata really changed.
 * - `worker-dropped`: a worker went away; `worker` is its last metadata,
 *   and `reason` says why when the backend knows it.
 */
export interface DiscoveryEvent {
  /** What happened to the worker. */
  readonly type: DiscoveryEventType;
  /** The worker's metadata: the new one, or for `worker-dropped` its last one. */
  readonly worker: WorkerInfo;
  /**
   * Only on some `worker-dropped` events: why the worker went away, when the
   * backend knows it. Absent when it cannot tell (etcd: a deleted key does
   * not say whether its lease expired, was revoked, or the key was deleted;
   * local: a worker gone from the segment without a journal record, as a
   * wool publisher withdraws; a drop found by re-reading a whole state).
   * Informative: two events that differ only in `reason` mean the same
   * change, and operators pass it on unchanged.
   */
  readonly reason?: DropReason;
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
