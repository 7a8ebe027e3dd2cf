import { WorkerLedger } from '../discovery/WorkerLedger.js';
import { eventWorker } from './eventWorker.js';
import type { DiscoveryEvent, WorkerSnapshot } from '../events/types.js';
import { describeValue } from '../model/describeValue.js';
import { sameWorker } from '../model/sameWorker.js';

/**
 * The state of one {@link toSnapshots} subscription: the current workers (a
 * copy-on-write {@link WorkerLedger}), the snapshot last emitted, and the
 * uids changed since.
 * @internal
 */
export class SnapshotBatch {
  readonly #ledger = new WorkerLedger();
  /** The last emitted snapshot; never mutated. */
  #emitted: WorkerSnapshot = this.#ledger.snapshot();
  /** Uids touched since the last flush. */
  readonly #touched = new Set<string>();

  /**
   * Applies one event to the current workers.
   * @param event The source event.
   * @returns Whether the event changed the current workers (a flush is due).
   * @throws {TypeError} Naming a malformed event.
   */
  record(event: DiscoveryEvent): boolean {
    const worker = eventWorker('toSnapshots', event);
    const uid = worker.uid;
    switch (event.type) {
      case 'worker-added':
      case 'worker-updated':
        if (this.#ledger.put(worker) === undefined) return false;
        break;
      case 'worker-dropped':
        if (this.#ledger.drop(uid) === undefined) return false;
        break;
      default:
        throw new TypeError(`toSnapshots: unknown event type ${describeValue(event.type)}`);
    }
    this.#touched.add(uid);
    return true;
  }

  /**
   * Ends a batch.
   * @returns The current workers if they differ from the snapshot last
   * returned (which they then become), `undefined` if the batch netted to no
   * change.
   */
  flush(): WorkerSnapshot | undefined {
    let changed = false;
    for (const uid of this.#touched) {
      const before = this.#emitted.get(uid);
      const after = this.#ledger.get(uid);
      if (before === after) continue;
      if (before === undefined || after === undefined || !sameWorker(before, after)) {
        changed = true;
        break;
      }
    }
    this.#touched.clear();
    if (!changed) return undefined;
    this.#emitted = this.#ledger.snapshot();
    return this.#emitted;
  }
}
