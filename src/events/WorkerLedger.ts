import { discoveryEvent } from './discoveryEvent.js';
import { workerChange } from './workerChange.js';
import { sameWorker } from '../model/sameWorker.js';
import type { DiscoveryEvent, DropReason, WorkerSnapshot } from './types.js';
import { describeValue } from '../model/describeValue.js';
import type { WorkerInfo } from '../model/types.js';

const EMPTY: WorkerSnapshot = new Map<string, WorkerInfo>();

/** How many old uids {@link WorkerLedger.reconcile} skips, at most, to get back in step. */
const RESYNC = 4;

function mismatch(uid: unknown, worker: unknown): TypeError {
  const actual =
    worker !== null && typeof worker === 'object'
      ? describeValue((worker as { uid?: unknown }).uid)
      : describeValue(worker);
  return new TypeError(`snapshot key ${describeValue(uid)} does not match its worker's uid ${actual}`);
}

/**
 * What one subscriber has been told: the workers it saw added (with the
 * metadata it saw last), and the single place where woolrx decides which
 * event a change is.
 *
 * - {@link WorkerLedger.put} of an unknown uid is `worker-added`; of a known
 *   uid, `worker-updated` only when the metadata really changed
 *   (`!sameWorker`), otherwise nothing (the rule is {@link workerChange}'s).
 * - {@link WorkerLedger.drop} of a known uid is `worker-dropped` carrying the
 *   last metadata reported; of an unknown uid, nothing.
 * - {@link WorkerLedger.reconcile} takes a whole new snapshot and returns the
 *   events that turn the old state into it: every `worker-dropped` first (in
 *   the old state's order), then `worker-added` / `worker-updated` in the new
 *   snapshot's order.
 *
 * Every backend's subscription, the in-memory registry, and
 * {@link diffSnapshots} keep their state in a ledger, so the decision means
 * the same thing everywhere; a local subscriber keeps it in the entries it
 * has per uid anyway (one map, not two), deciding by the same
 * {@link workerChange} and dropping by the same rule.
 *
 * The state is copy-on-write: {@link WorkerLedger.snapshot} hands out the
 * current map in O(1) and the next write copies it, and `reconcile` adopts
 * the caller's snapshot without copying it. A snapshot handed out is never
 * mutated afterwards.
 * @internal Shared by the backends and operators; not part of the public API.
 */
export class WorkerLedger {
  #workers: Map<string, WorkerInfo> | WorkerSnapshot = EMPTY;
  /** `#workers` may be seen by someone else: copy before writing. */
  #shared = true;
  /**
   * Whether {@link WorkerLedger.reconcile} matches by reference first: most
   * workers of the last snapshot were the very objects already known.
   */
  #byReference = true;

  /** How many workers the subscriber currently knows. */
  get size(): number {
    return this.#workers.size;
  }

  /**
   * @param uid A worker uid.
   * @returns The metadata last reported for `uid`, or `undefined` if unknown.
   */
  get(uid: string): WorkerInfo | undefined {
    return this.#workers.get(uid);
  }

  /**
   * @param uid A worker uid.
   * @returns Whether the subscriber knows `uid`.
   */
  has(uid: string): boolean {
    return this.#workers.has(uid);
  }

  /** @returns The known workers, in the order they were first added. */
  values(): IterableIterator<WorkerInfo> {
    return this.#workers.values();
  }

  /**
   * Calls `visit` with each known worker, in the order they were first
   * added. For a walk over every worker that runs too rarely to be
   * optimized (a liveness sweep once a period): there, each step of
   * {@link WorkerLedger.values}'s iterator allocates its result object.
   * @param visit Called with each worker.
   */
  forEach(visit: (worker: WorkerInfo) => void): void {
    this.#workers.forEach((worker) => visit(worker));
  }

  /**
   * The current state as a snapshot that is never mutated afterwards (the
   * ledger copies on its next write). O(1).
   * @returns The known workers by uid.
   */
  snapshot(): WorkerSnapshot {
    this.#shared = true;
    return this.#workers;
  }

  /**
   * Records that `worker` is registered with this metadata.
   * @param worker The worker's current metadata.
   * @returns `worker-added` for an unknown uid, `worker-updated` when the
   * metadata changed, `undefined` when nothing changed.
   */
  put(worker: WorkerInfo): DiscoveryEvent | undefined {
    const type = workerChange(this.#workers.get(worker.uid), worker);
    if (type === undefined) return undefined;
    this.#writable().set(worker.uid, worker);
    return discoveryEvent(type, worker);
  }

  /**
   * Records that `uid` is no longer registered.
   * @param uid The worker's uid.
   * @param reason Why, when the backend knows it.
   * @returns `worker-dropped` with the last metadata reported (and the
   * reason), or `undefined` when the uid was not known.
   */
  drop(uid: string, reason?: DropReason): DiscoveryEvent | undefined {
    const before = this.#workers.get(uid);
    if (before === undefined) return undefined;
    this.#writable().delete(uid);
    return discoveryEvent('worker-dropped', before, reason);
  }

  /**
   * Applies one event's meaning: `worker-added` and `worker-updated` put the
   * worker, `worker-dropped` drops its uid (keeping its reason).
   * @param event The change.
   * @returns The event subscribers should see, or `undefined`.
   */
  apply(event: DiscoveryEvent): DiscoveryEvent | undefined {
    return event.type === 'worker-dropped' ? this.drop(event.worker.uid, event.reason) : this.put(event.worker);
  }

  /**
   * Makes `next` the state, without copying it (so it must not be mutated
   * afterwards), and returns the events that turn the old state into it.
   * Validates the whole snapshot first: on a bad one it throws and the state
   * is unchanged.
   *
   * One pass over `next`, in step with the old state: while both list their
   * uids in the same order (a snapshot built like the one before it), each
   * worker is matched without a hash look-up, and an unchanged reference is
   * neither compared nor checked again: the very object the state holds
   * under the very same uid passed the key check when it came in (workers
   * are immutable), so the pass does not even read it. A uid out of step is
   * looked up instead. The old state is not walked a second time: its uids
   * missed by the walk in step are checked against `next` for drops, and
   * only when some uid disappeared.
   * @param next The complete new set of workers, by uid.
   * @returns Every `worker-dropped` (old order), then the `worker-added` and
   * `worker-updated` events (new order); empty when nothing changed.
   * @throws {TypeError} When a key differs from its worker's uid.
   */
  reconcile(next: WorkerSnapshot): DiscoveryEvent[] {
    const prev = this.#workers;
    const changes: DiscoveryEvent[] = [];
    const drops: DiscoveryEvent[] = [];
    let kept = 0;
    // The old state is walked in step with the new snapshot: while the uids
    // come in the same order, the worker under the old iterator's uid is the
    // one known for it, with no hash look-up. Any uid that does not match is
    // looked up instead, so the walk's position only affects the cost.
    // (Iterator results are only kept in block-scoped constants, which the
    // compiler can keep off the heap.)
    const prevUids = prev.keys();
    const prevWorkers = prev.values();
    const first = prevUids.next();
    let prevLeft = first.done !== true;
    let prevUid: unknown = first.value;
    const uids = next.keys();
    const workers = next.values();
    // `===` on two strings or two objects first reads both (their types),
    // which costs a cache miss per worker in a large snapshot; `Object.is`
    // (the same answer for a string uid) first compares the references and
    // reads nothing when they are equal. But it is a call, which costs more
    // than `===` when they are not: so it is used while most workers come
    // again as the very same objects (the last snapshot tells).
    const byReference = this.#byReference;
    let same = 0;
    for (;;) {
      const step = uids.next();
      if (step.done === true) break;
      const uid = step.value;
      const worker = workers.next().value as WorkerInfo;
      let before: WorkerInfo | undefined;
      const inStep = prevLeft && (byReference ? Object.is(prevUid, uid) : prevUid === uid);
      if (inStep) {
        before = prevWorkers.next().value;
        const after = prevUids.next();
        prevLeft = after.done !== true;
        prevUid = after.value;
        // The object known under this very uid: its key was checked when it
        // came in, and nothing about it changed. This common case must cost
        // no more than the walk itself, not even a read of the worker (a
        // cache miss per worker): so the one check below comes after it.
        if (byReference ? Object.is(before, worker) : before === worker) {
          kept++;
          same++;
          continue;
        }
      }
      if (worker === null || typeof worker !== 'object' || worker.uid !== uid) throw mismatch(uid, worker);
      if (!inStep) {
        before = prev.get(uid);
        // A known uid out of step: some old uids were dropped or moved.
        // Skip a few of them to get back in step.
        if (before !== undefined) {
          for (let skip = 0; skip < RESYNC && prevLeft; skip++) {
            const here = prevUid;
            const skipped = prevWorkers.next().value as WorkerInfo;
            const after = prevUids.next();
            prevLeft = after.done !== true;
            prevUid = after.value;
            if (here === uid) break;
            if (!next.has(here as string)) drops.push(discoveryEvent('worker-dropped', skipped));
          }
        }
      }
      if (before === undefined) {
        changes.push(discoveryEvent('worker-added', worker));
        continue;
      }
      kept++;
      // workerChange's rule for a known uid, written out: this runs for every worker of every snapshot.
      if (before !== worker && !sameWorker(before, worker)) changes.push(discoveryEvent('worker-updated', worker));
    }
    // Every old uid not matched in step was either skipped above or is still
    // ahead of the old walk, so the drops are found, in the old order, by
    // finishing that walk; and only when some uid disappeared.
    if (kept < prev.size) {
      while (prevLeft) {
        const worker = prevWorkers.next().value as WorkerInfo;
        if (!next.has(prevUid as string)) drops.push(discoveryEvent('worker-dropped', worker));
        const after = prevUids.next();
        prevLeft = after.done !== true;
        prevUid = after.value;
      }
    }
    this.#workers = next;
    this.#shared = true;
    this.#byReference = same * 2 >= kept;
    return drops.length > 0 ? drops.concat(changes) : changes;
  }

  /**
   * Forgets every worker.
   * @returns A `worker-dropped` per known worker, in the order they were added.
   */
  clear(): DiscoveryEvent[] {
    const drops: DiscoveryEvent[] = [];
    this.#workers.forEach((worker) => drops.push(discoveryEvent('worker-dropped', worker)));
    this.#workers = EMPTY;
    this.#shared = true;
    return drops;
  }

  #writable(): Map<string, WorkerInfo> {
    if (this.#shared) {
      this.#workers = new Map(this.#workers);
      this.#shared = false;
    }
    return this.#workers as Map<string, WorkerInfo>;
  }
}
