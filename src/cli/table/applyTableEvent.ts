import type { DiscoveryEvent } from '../../events/types.js';
import type { TableState } from './types.js';

/**
 * The table after one event: an added or updated worker gets (or keeps) its
 * row with the new metadata and the time of this event; a dropped worker
 * leaves. Rows keep the order in which workers were first added. Pure: the
 * previous state is not modified.
 *
 * @example
 * let state: TableState = new Map();
 * state = applyTableEvent(state, discoveryEvent('worker-added', worker), Date.now());
 *
 * @param state The table before the event.
 * @param now When the event was seen (ms since the epoch).
 * @returns The new table.
 */
export function applyTableEvent(state: TableState, event: DiscoveryEvent, now: number): TableState {
  const { worker } = event;
  const next = new Map(state);
  if (event.type === 'worker-dropped') {
    next.delete(worker.uid);
    return next;
  }
  const previous = state.get(worker.uid);
  next.set(worker.uid, {
    worker,
    addedAt: previous?.addedAt ?? now,
    lastType: event.type,
    lastAt: now,
  });
  return next;
}
