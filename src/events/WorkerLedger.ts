import { discoveryEvent } from './discoveryEvent.js';
import type { DiscoveryEvent, WorkerSnapshot } from './types.js';
import { describeValue } from '../model/describeValue.js';
import { sameWorker } from '../model/sameWorker.js';
import type { WorkerInfo } from '../model/types.js';

const EMPTY: WorkerSnapshot = new Map<string, WorkerInfo>();

/**
 * What one subscriber has been told: the workers it saw added (with the
 * metadata it saw last), and the single place where woolrx decides which
 * event a change is.
 *
 * - {@link WorkerLedger.put} of an unknown uid is `worker-added`; of a known
 *   uid, `worker-updated` only when the metadata really changed
 *   (`!sameWorker`), otherwise nothing.
 * - {@link WorkerLedger.drop} of a known uid is `worker-dropped` carrying the
 *   last metadata reported; of an unknown uid, nothing.
 * - {@link WorkerLedger.reconcile} takes a whole new snapshot and returns the
 *   events that turn the old state into it: every `worker-dropped` first (in
 *   the old state's order), then `worker-added` / `worker-updated` in the new
 *   snapshot's order.
 *
 * Every backend's subscription, the in-memory registry, and
 * {@link diffSnapshots} keep their state in a ledger, so the decision means
 * the same thing everywhere.
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

  // Scratch state of reconcile(), kept on the instance so that its
  // Map#forEach callbacks are bound once and a reconcile allocates nothing
  // but the events it returns (Map#forEach is about twice as fast as for-of
  // on large maps and allocates no entry pairs).
  #next: WorkerSnapshot = EMPTY;
  #changes: DiscoveryEvent[] = [];
  #drops: DiscoveryEvent[] = [];
  #kept = 0;
  #invalid: TypeError | undefined;

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
    const before = this.#workers.get(worker.uid);
    if (before === worker) return undefined;
    if (before !== undefined && sameWorker(before, worker)) return undefined;
    this.#writable().set(worker.uid, worker);
    return discoveryEvent(before === undefined ? 'worker-added' : 'worker-updated', worker);
  }

  /**
   * Records that `uid` is no longer registered.
   * @param uid The worker's uid.
   * @returns `worker-dropped` with the last metadata reported, or `undefined`
   * when the uid was not known.
   */
  drop(uid: string): DiscoveryEvent | undefined {
    const before = this.#workers.get(uid);
    if (before === undefined) return undefined;
    this.#writable().delete(uid);
    return discoveryEvent('worker-dropped', before);
  }

  /**
   * Applies one event's meaning: `worker-added` and `worker-updated` put the
   * worker, `worker-dropped` drops its uid.
   * @param event The change.
   * @returns The event subscribers should see, or `undefined`.
   */
  apply(event: DiscoveryEvent): DiscoveryEvent | undefined {
    return event.type === 'worker-dropped' ? this.drop(event.worker.uid) : this.put(event.worker);
  }

  /**
   * Makes `next` the state, without copying it (so it must not be mutated
   * afterwards), and returns the events that turn the old state into it.
   * Validates the whole snapshot first: on a bad one it throws and the state
   * is unchanged.
   * @param next The complete new set of workers, by uid.
   * @returns Every `worker-dropped` (old order), then the `worker-added` and
   * `worker-updated` events (new order); empty when nothing changed.
   * @throws {TypeError} When a key differs from its worker's uid.
   */
  reconcile(next: WorkerSnapshot): DiscoveryEvent[] {
    const prev = this.#workers;
    this.#next = next;
    this.#changes = [];
    this.#kept = 0;
    this.#invalid = undefined;
    next.forEach(this.#visitNew);
    // (Set by #visitNew: TypeScript cannot see through the callback.)
    const invalid = this.#invalid as TypeError | undefined;
    let changes = this.#changes;
    this.#changes = [];
    if (invalid !== undefined) {
      this.#next = EMPTY;
      throw invalid;
    }
    // Only walk the old state when some uid disappeared.
    if (this.#kept < prev.size) {
      this.#drops = [];
      prev.forEach(this.#visitPrev);
      if (this.#drops.length > 0) changes = this.#drops.concat(changes);
      this.#drops = [];
    }
    this.#next = EMPTY;
    this.#workers = next;
    this.#shared = true;
    return changes;
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

  readonly #visitNew = (worker: WorkerInfo, uid: string): void => {
    if (this.#invalid !== undefined) return;
    if (worker === null || typeof worker !== 'object' || worker.uid !== uid) {
      const actual = worker !== null && typeof worker === 'object' ? describeValue(worker.uid) : describeValue(worker);
      this.#invalid = new TypeError(`snapshot key ${describeValue(uid)} does not match its worker's uid ${actual}`);
      return;
    }
    const before = this.#workers.get(uid);
    if (before === undefined) {
      this.#changes.push(discoveryEvent('worker-added', worker));
      return;
    }
    this.#kept++;
    if (before !== worker && !sameWorker(before, worker)) this.#changes.push(discoveryEvent('worker-updated', worker));
  };

  readonly #visitPrev = (worker: WorkerInfo, uid: string): void => {
    if (!this.#next.has(uid)) this.#drops.push(discoveryEvent('worker-dropped', worker));
  };

  #writable(): Map<string, WorkerInfo> {
    if (this.#shared) {
      this.#workers = new Map(this.#workers);
      this.#shared = false;
    }
    return this.#workers as Map<string, WorkerInfo>;
  }
}
