import type { WorkerLedger } from '../events/WorkerLedger.js';
import type { DiscoveryEvent, WorkerSnapshot } from '../events/types.js';
import { describeValue } from '../model/describeValue.js';

function isMap(value: unknown): value is WorkerSnapshot {
  // `instanceof` alone misses Maps from another realm (iframe, vm context).
  return value instanceof Map || Object.prototype.toString.call(value) === '[object Map]';
}

function describeSnapshot(value: unknown): string {
  if (Array.isArray(value)) return `array ${describeValue(value)}`;
  if (value !== null && typeof value === 'object') {
    const name = (value as { constructor?: { name?: unknown } }).constructor?.name;
    return `${typeof name === 'string' && name !== '' ? name : 'object'} ${describeValue(value)}`;
  }
  return describeValue(value);
}

/**
 * The step function of {@link diffSnapshots}: the events that lead from the
 * ledger's state to `snapshot`, which becomes the new state.
 * @internal
 * @param ledger What the subscriber has been told so far.
 * @param snapshot The next snapshot.
 * @returns Every `worker-dropped`, then the `worker-added` and
 * `worker-updated` events (see {@link WorkerLedger.reconcile}).
 * @throws {TypeError} Prefixed `diffSnapshots: `, naming a value that is not
 * a `Map` or a key that differs from its worker's uid; the ledger is then
 * unchanged.
 */
export function diffSnapshotsStep(ledger: WorkerLedger, snapshot: WorkerSnapshot): DiscoveryEvent[] {
  if (!isMap(snapshot)) {
    throw new TypeError(`diffSnapshots: snapshot must be a Map of uid to WorkerInfo, got ${describeSnapshot(snapshot)}`);
  }
  try {
    return ledger.reconcile(snapshot);
  } catch (error) {
    // The ledger's own error, re-worded with the operator's prefix (not a new failure with a cause).
    // eslint-disable-next-line preserve-caught-error
    if (error instanceof TypeError) throw new TypeError(`diffSnapshots: ${error.message}`);
    throw error;
  }
}
