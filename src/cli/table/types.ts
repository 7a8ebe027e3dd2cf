import type { DiscoveryEventType } from '../../events/types.js';
import type { WorkerInfo } from '../../model/types.js';

/** One row of the live worker table: a worker and when things happened to it. */
export interface TableEntry {
  /** The worker's latest metadata. */
  readonly worker: WorkerInfo;
  /** When it was first added (ms since the epoch). */
  readonly addedAt: number;
  /** The last event seen for it. */
  readonly lastType: DiscoveryEventType;
  /** When that event was seen (ms since the epoch). */
  readonly lastAt: number;
}

/** The live workers by uid, in the order they were added. */
export type TableState = ReadonlyMap<string, TableEntry>;

/** How {@link renderTable} lays out a frame. */
export interface RenderTableOptions {
  /** Terminal columns: every line is cut to this width. */
  readonly width: number;
  /** Terminal rows: rows beyond are summarised in one line. Unlimited when absent. */
  readonly height?: number | undefined;
  /** The current time (ms since the epoch), for the age columns. */
  readonly now: number;
  /** A first line (e.g. the namespace). */
  readonly title?: string | undefined;
  /** Lines shown under the table (e.g. the demo's last actions). */
  readonly notes?: readonly string[] | undefined;
  /**
   * The initial state is still loading: the count line says so instead of
   * `0 workers` (which would claim an empty pool). Default `false`.
   */
  readonly loading?: boolean | undefined;
}
