// Checks one subscriber's event stream against the rules every backend
// keeps, per uid: no duplicate add, no update or drop of an unknown worker,
// no update to identical metadata, and — the workers' versions carrying a
// per-uid serial that every new metadata increases — nothing out of order
// or resurrected (an add or update never goes back to metadata already
// seen). Returns the folded state and every violation found.
import { sameWorker } from '../../src/model/sameWorker.js';
import type { DiscoveryEvent } from '../../src/events/types.js';
import type { WorkerInfo } from '../../src/model/types.js';

/**
 * The serial a test worker's version carries (`v<serial>`); `undefined` for another version (a wool peer's worker: not
 * order-checked).
 */
export function serialOf(worker: WorkerInfo): number | undefined {
  const match = /^v(\d+)$/.exec(worker.version);
  return match === null ? undefined : Number(match[1]);
}

export interface StreamCheck {
  /** uid → worker, after every event. */
  readonly state: Map<string, WorkerInfo>;
  /** Human-readable violations (empty: the stream is consistent). */
  readonly violations: string[];
  /** Events seen of each kind. */
  readonly counts: { added: number; updated: number; dropped: number };
}

/**
 * Folds `events`, checking them.
 * @param events One subscriber's events, in order.
 * @param label Names the subscriber in violations.
 */
export function checkStream(events: readonly DiscoveryEvent[], label: string): StreamCheck {
  const state = new Map<string, WorkerInfo>();
  const last = new Map<string, number>();
  const violations: string[] = [];
  const counts = { added: 0, updated: 0, dropped: 0 };
  for (const [i, { type, worker }] of events.entries()) {
    const uid = worker.uid;
    const known = state.get(uid);
    const serial = serialOf(worker) ?? Number.POSITIVE_INFINITY;
    const before = last.get(uid) ?? -1;
    const ordered = Number.isFinite(serial);
    const at = `${label} event ${i} (${type} ${uid} ${worker.version})`;
    if (type === 'worker-added') {
      counts.added += 1;
      if (known !== undefined) violations.push(`${at}: added while known (duplicate)`);
      if (ordered && serial <= before) violations.push(`${at}: resurrected or out of order (last seen v${before})`);
      state.set(uid, worker);
      if (ordered) last.set(uid, Math.max(before, serial));
    } else if (type === 'worker-updated') {
      counts.updated += 1;
      if (known === undefined) violations.push(`${at}: updated while unknown (spurious)`);
      else if (sameWorker(known, worker)) violations.push(`${at}: update to identical metadata (spurious)`);
      if (ordered && serial <= before) violations.push(`${at}: out of order (last seen v${before})`);
      state.set(uid, worker);
      if (ordered) last.set(uid, Math.max(before, serial));
    } else {
      counts.dropped += 1;
      if (known === undefined) violations.push(`${at}: dropped while unknown (spurious)`);
      else if (!sameWorker(known, worker)) violations.push(`${at}: dropped with other metadata than last reported`);
      state.delete(uid);
    }
  }
  return { state, violations, counts };
}
