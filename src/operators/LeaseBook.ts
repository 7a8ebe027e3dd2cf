import { WorkerLedger } from '../events/WorkerLedger.js';
import { eventWorker } from './eventWorker.js';
import type { DiscoveryEvent } from '../events/types.js';
import { describeValue } from '../model/describeValue.js';

/**
 * The state of one {@link expireWorkers} subscription: a lease per worker,
 * renewed by every sighting. Time is passed in (`now`), so the book itself is
 * deterministic.
 *
 * Every lease has the same length, so leases expire in the order they were
 * last renewed: a renewed uid is deleted and re-inserted, which keeps the
 * map's iteration order the deadline order, and its first entry expires
 * first.
 * @internal
 */
export class LeaseBook {
  readonly #ttl: number;
  /** What the subscriber was told: the one added/updated/dropped decision. */
  readonly #ledger = new WorkerLedger();
  /** uid → deadline, in deadline order (a renewal moves its uid to the end). */
  readonly #deadlines = new Map<string, number>();
  /** Deadlines never decrease, even if the clock steps back. */
  #lastDeadline = -Infinity;

  /** @param ttl How long, in ms, a sighting keeps a worker alive. */
  constructor(ttl: number) {
    this.#ttl = ttl;
  }

  /** How many workers hold a lease. */
  get size(): number {
    return this.#deadlines.size;
  }

  /**
   * Records a sighting (`worker-added` / `worker-updated`) or an explicit
   * `worker-dropped`.
   * @param event The source event.
   * @param now The scheduler's current time.
   * @returns The normalised event to emit (`worker-added` for a new uid,
   * `worker-updated` for changed metadata, `worker-dropped` for a known uid),
   * or `undefined` for none.
   * @throws {TypeError} Naming a malformed event.
   */
  sight(event: DiscoveryEvent, now: number): DiscoveryEvent | undefined {
    const type = event?.type;
    const worker = eventWorker('expireWorkers', event);
    const uid = worker.uid;
    switch (type) {
      case 'worker-added':
      case 'worker-updated': {
        this.#lastDeadline = Math.max(this.#lastDeadline, now + this.#ttl);
        this.#deadlines.delete(uid);
        this.#deadlines.set(uid, this.#lastDeadline);
        const change = this.#ledger.put(worker);
        // Re-emit the source's own event when it already says what happened.
        return change !== undefined && change.type === type ? event : change;
      }
      case 'worker-dropped':
        this.#deadlines.delete(uid);
        return this.#ledger.drop(uid, event.reason);
      default:
        throw new TypeError(`expireWorkers: unknown event type ${describeValue(type)}`);
    }
  }

  /**
   * @param now The scheduler's current time.
   * @returns How long until the earliest lease runs out (0 if it already
   * has), or `undefined` when no worker holds a lease.
   */
  delay(now: number): number | undefined {
    for (const deadline of this.#deadlines.values()) return Math.max(0, deadline - now);
    return undefined;
  }

  /**
   * Ends the leases that ran out by `now`, lazily: each is removed as its
   * `worker-dropped` is taken from the iterator, so a sighting that arrives
   * while a drop is being delivered still renews its worker in time.
   * @param now The scheduler's current time.
   * @returns A `worker-dropped` with the last metadata of each expired worker.
   */
  *expire(now: number): Generator<DiscoveryEvent, void, undefined> {
    for (;;) {
      const first = this.#deadlines.entries().next();
      if (first.done === true || first.value[1] > now) return;
      const [uid] = first.value;
      this.#deadlines.delete(uid);
      const dropped = this.#ledger.drop(uid);
      if (dropped !== undefined) yield dropped;
    }
  }
}
