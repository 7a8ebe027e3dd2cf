import { discoveryEvent } from '../events/discoveryEvent.js';
import type { DiscoveryEvent } from '../events/types.js';
import { describeValue } from '../model/describeValue.js';
import { sameWorker } from '../model/sameWorker.js';
import type { WorkerInfo } from '../model/types.js';

interface Lease {
  readonly worker: WorkerInfo;
  readonly deadline: number;
}

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
  readonly #leases = new Map<string, Lease>();
  /** Deadlines never decrease, even if the clock steps back. */
  #lastDeadline = -Infinity;

  /** @param ttl How long, in ms, a sighting keeps a worker alive. */
  constructor(ttl: number) {
    this.#ttl = ttl;
  }

  /** How many workers hold a lease. */
  get size(): number {
    return this.#leases.size;
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
    const worker = event?.worker as WorkerInfo | null | undefined;
    if (worker === null || typeof worker !== 'object' || typeof worker.uid !== 'string') {
      throw new TypeError(`expireWorkers: event has no worker uid: ${describeValue(event)}`);
    }
    const uid = worker.uid;
    switch (type) {
      case 'worker-added':
      case 'worker-updated': {
        const known = this.#leases.get(uid);
        this.#lastDeadline = Math.max(this.#lastDeadline, now + this.#ttl);
        if (known !== undefined) this.#leases.delete(uid);
        this.#leases.set(uid, { worker, deadline: this.#lastDeadline });
        if (known === undefined) return type === 'worker-added' ? event : discoveryEvent('worker-added', worker);
        if (known.worker === worker || sameWorker(known.worker, worker)) return undefined;
        return type === 'worker-updated' ? event : discoveryEvent('worker-updated', worker);
      }
      case 'worker-dropped':
        return this.#leases.delete(uid) ? event : undefined;
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
    for (const lease of this.#leases.values()) return Math.max(0, lease.deadline - now);
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
      const first = this.#leases.entries().next();
      if (first.done === true || first.value[1].deadline > now) return;
      this.#leases.delete(first.value[0]);
      yield discoveryEvent('worker-dropped', first.value[1].worker);
    }
  }
}
