import type { BlockEntry } from './BlockReader.js';

/** Blocks re-read per fallback poll tick (round-robin), so a tick stays short at any size. */
export const POLL_BLOCKS = 64;
/** Blocks compared per turn of the event loop while sweeping, so that woolrx events are never held behind a sweep. */
export const SWEEP_SLICE = 4;

/**
 * The blocks a local subscriber still has to compare with the bytes last
 * seen, a slice per turn of the event loop (each turn after applying the
 * journal, so woolrx events are never held behind a sweep): after a wool
 * notification, all of them ({@link BlockSweep.all}); on a poll tick, a
 * round-robin slice ({@link BlockSweep.poll}).
 * @internal
 */
export class BlockSweep {
  #queue: BlockEntry[] = [];
  #at = 0;
  #cursor = 0;
  readonly #slice: number;
  readonly #pollBlocks: number;

  /**
   * @param slice Blocks compared per {@link BlockSweep.next} call.
   * @param pollBlocks Blocks queued per poll tick.
   */
  constructor(slice = SWEEP_SLICE, pollBlocks = POLL_BLOCKS) {
    this.#slice = slice;
    this.#pollBlocks = pollBlocks;
  }

  /** How many queued blocks are left to compare. */
  get remaining(): number {
    return this.#queue.length - this.#at;
  }

  /**
   * Queues every block (replacing what was queued).
   * @param entries Every known entry.
   * @param skip Entries just read: not to compare again.
   */
  all(entries: Iterable<BlockEntry>, skip: ReadonlySet<BlockEntry>): void {
    this.#queue = [];
    this.#at = 0;
    for (const entry of entries) if (!skip.has(entry)) this.#queue.push(entry);
  }

  /**
   * Queues the next round-robin slice of blocks (after what is queued).
   * @param entries Every known entry.
   * @param skip Entries just read: not to compare again.
   */
  poll(entries: Iterable<BlockEntry>, skip: ReadonlySet<BlockEntry>): void {
    const all = [...entries];
    const count = Math.min(all.length, this.#pollBlocks);
    for (let i = 0; i < count; i += 1) {
      const entry = all[(this.#cursor + i) % all.length];
      if (entry !== undefined && !skip.has(entry)) this.#queue.push(entry);
    }
    this.#cursor = all.length === 0 ? 0 : (this.#cursor + count) % all.length;
  }

  /**
   * Compares the next slice.
   * @param current Whether an entry is still the one known for its uid (a
   * dropped or re-found uid is skipped, not counted).
   * @param compare Compares one block; returns `false` to stop (the
   * subscriber left).
   * @returns `true` when blocks are left for another turn.
   */
  next(current: (entry: BlockEntry) => boolean, compare: (entry: BlockEntry) => boolean): boolean {
    let compared = 0;
    while (this.#at < this.#queue.length && compared < this.#slice) {
      const entry = this.#queue[this.#at];
      this.#at += 1;
      if (entry === undefined || !current(entry)) continue;
      compared += 1;
      if (!compare(entry)) return false;
    }
    if (this.#at < this.#queue.length) return true;
    this.clear();
    return false;
  }

  /** Forgets what is queued. */
  clear(): void {
    this.#queue = [];
    this.#at = 0;
  }
}
