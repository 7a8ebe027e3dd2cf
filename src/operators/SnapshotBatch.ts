import { auditTime, defer, filter, map, type OperatorFunction, type SchedulerLike } from 'rxjs';
import { WorkerLedger } from '../events/WorkerLedger.js';
import type { DiscoveryEvent, WorkerSnapshot } from '../events/types.js';
import { describeValue } from '../model/describeValue.js';
import { sameWorker } from '../model/sameWorker.js';
import type { WorkerPredicate } from '../model/types.js';
import { eventWorker } from './eventWorker.js';

/**
 * The state of one subscription that folds events into snapshots
 * ({@link toSnapshots}, `Discovery.snapshots()`): the current workers (a
 * copy-on-write {@link WorkerLedger}), the snapshot last emitted, and the
 * uids changed since. Until it is synced it only collects the current
 * workers; its first flush after {@link SnapshotBatch.sync} emits them,
 * even when there are none.
 * @internal
 */
export class SnapshotBatch {
  readonly #ledger = new WorkerLedger();
  /** The last emitted snapshot (never mutated); `undefined` before the first flush of a batch made unsynced. */
  #emitted: WorkerSnapshot | undefined;
  /** Uids touched since the last flush. */
  readonly #touched = new Set<string>();
  #synced: boolean;

  /**
   * @param synced `true` (the default): the state starts complete and empty,
   * so an empty first batch emits nothing; `false`: nothing is due until
   * {@link SnapshotBatch.sync}.
   */
  constructor(synced = true) {
    this.#synced = synced;
    if (synced) this.#emitted = this.#ledger.snapshot();
  }

  /**
   * Applies one event to the current workers.
   * @param event The source event.
   * @param predicate When given, a worker that fails it counts as dropped.
   * @returns Whether a flush is due (the event changed the current workers, and the batch is synced).
   * @throws {TypeError} Naming a malformed event.
   */
  record(event: DiscoveryEvent, predicate?: WorkerPredicate): boolean {
    const worker = eventWorker('toSnapshots', event);
    const uid = worker.uid;
    let changed: boolean;
    switch (event.type) {
      case 'worker-added':
      case 'worker-updated':
        changed =
          (predicate === undefined || Boolean(predicate(worker))
            ? this.#ledger.put(worker)
            : this.#ledger.drop(uid)) !== undefined;
        break;
      case 'worker-dropped':
        changed = this.#ledger.drop(uid) !== undefined;
        break;
      default:
        throw new TypeError(`toSnapshots: unknown event type ${describeValue(event.type)}`);
    }
    if (!changed || !this.#synced) return false;
    this.#touched.add(uid);
    return true;
  }

  /**
   * The initial state is complete.
   * @returns Whether a flush is due (the first call only).
   */
  sync(): boolean {
    if (this.#synced) return false;
    this.#synced = true;
    return true;
  }

  /**
   * Ends a batch.
   * @returns The current workers if they differ from the snapshot last
   * returned (which they then become), or if none was returned yet since
   * {@link SnapshotBatch.sync}; `undefined` if the batch netted to no change.
   */
  flush(): WorkerSnapshot | undefined {
    const emitted = this.#emitted;
    let changed = emitted === undefined;
    if (emitted !== undefined) {
      for (const uid of this.#touched) {
        const before = emitted.get(uid);
        const after = this.#ledger.get(uid);
        if (before === after) continue;
        if (before === undefined || after === undefined || !sameWorker(before, after)) {
          changed = true;
          break;
        }
      }
    }
    this.#touched.clear();
    if (!changed) return undefined;
    this.#emitted = this.#ledger.snapshot();
    return this.#emitted;
  }
}

/**
 * The one path from events to snapshots: per subscription a
 * {@link SnapshotBatch}; `record` is the step (`true`: a flush is due);
 * `auditTime(0, scheduler)` turns a burst into one flush; the flush emits
 * the snapshot unless the burst netted to no change.
 * @internal Used by {@link toSnapshots} and `syncedSnapshots`.
 * @param synced Whether the batch starts synced (see {@link SnapshotBatch}).
 * @param record Applies one source item to the batch.
 * @param scheduler Where a burst's flush runs.
 */
export function batchSnapshots<T>(
  synced: boolean,
  record: (batch: SnapshotBatch, item: T) => boolean,
  scheduler: SchedulerLike,
): OperatorFunction<T, WorkerSnapshot> {
  return (source) =>
    defer(() => {
      const batch = new SnapshotBatch(synced);
      return source.pipe(
        filter((item) => record(batch, item)),
        auditTime(0, scheduler),
        map(() => batch.flush()),
        filter((snapshot): snapshot is WorkerSnapshot => snapshot !== undefined),
      );
    });
}
