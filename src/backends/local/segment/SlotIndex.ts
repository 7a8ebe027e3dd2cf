import { diffSlots, findSlot, FREE_SLOT, sameSlot, SLOT_SIZE, slotIsFree } from './slotTable.js';

/**
 * A writer's index of a slot table it reads under the lock: the first slot
 * holding each uid, and the first free slot — what {@link findSlot} finds
 * by searching the whole table, answered without searching it.
 *
 * Each critical section reads the table afresh (another process, wool's
 * too, may have changed it since); {@link SlotIndex.sync} compares it with
 * the table the index describes (one native `memcmp` when nothing changed,
 * a bisection down to the changed slots otherwise) and updates only those.
 * The answers are exactly {@link findSlot}'s on the table last synced, with
 * the writer's own changes ({@link SlotIndex.set}) applied.
 * @internal
 */
export class SlotIndex {
  /** The table the index describes (`#length` bytes in use). */
  #known: Buffer = Buffer.alloc(0);
  #length = -1;
  /** uid bytes (latin1) → first slot holding them. */
  readonly #first = new Map<string, number>();
  /** uid bytes (latin1) → how many slots hold them (only when more than one). */
  readonly #extra = new Map<string, number>();
  /** The first free slot, or -1. */
  #free = -1;

  /** Forgets everything: the next {@link SlotIndex.sync} rebuilds (a segment re-opened). */
  reset(): void {
    this.#length = -1;
  }

  /**
   * Brings the index in line with a table just read.
   * @param table The slots read (no header).
   * @param length Bytes of `table` in use (`16 * capacity`).
   */
  sync(table: Buffer, length: number): void {
    if (length !== this.#length) {
      this.#rebuild(table, length);
      return;
    }
    this.#diff(table, length);
  }

  /**
   * @param bytes A UUID's 16 bytes.
   * @returns The first slot holding them, or -1.
   */
  find(bytes: Buffer): number {
    return this.#first.get(bytes.toString('latin1')) ?? -1;
  }

  /** @returns The first free slot, or -1. */
  firstFree(): number {
    return this.#free;
  }

  /**
   * Records a slot the writer has just written.
   * @param bytes What it now holds (16 bytes; zeros: free).
   */
  set(slot: number, bytes: Buffer): void {
    const offset = slot * SLOT_SIZE;
    if (offset + SLOT_SIZE > this.#length) return;
    this.#put(slot, offset, bytes, 0);
  }

  #rebuild(table: Buffer, length: number): void {
    if (this.#known.length < length) this.#known = Buffer.alloc(length);
    this.#known.fill(0, 0, length);
    this.#length = length;
    this.#first.clear();
    this.#extra.clear();
    this.#free = length > 0 ? 0 : -1;
    this.#diff(table, length);
  }

  /** Applies every slot of `table` that differs from the known table. */
  #diff(table: Buffer, length: number): void {
    this.#source = table;
    diffSlots(table, this.#known, 0, length, this.#changedSlot);
  }

  /** The table being synced (see #changedSlot). */
  #source: Buffer = this.#known;
  readonly #changedSlot = (offset: number): void => this.#put(offset / SLOT_SIZE, offset, this.#source, offset);

  /** Sets slot `slot` (at `offset`) of the known table to `source[from, from + 16)`, keeping the maps. */
  #put(slot: number, offset: number, source: Buffer, from: number): void {
    const known = this.#known;
    const wasFree = slotIsFree(known, offset);
    const nowFree = slotIsFree(source, from);
    if (!wasFree) {
      if (sameSlot(source, from, known, offset)) return;
      this.#remove(known.toString('latin1', offset, offset + SLOT_SIZE), slot);
    }
    for (let i = 0; i < SLOT_SIZE; i += 1) known[offset + i] = source[from + i] ?? 0;
    if (nowFree) {
      if (this.#free < 0 || slot < this.#free) this.#free = slot;
      return;
    }
    const key = known.toString('latin1', offset, offset + SLOT_SIZE);
    const first = this.#first.get(key);
    if (first === undefined) this.#first.set(key, slot);
    else {
      this.#extra.set(key, (this.#extra.get(key) ?? 1) + 1);
      if (slot < first) this.#first.set(key, slot);
    }
    if (slot === this.#free) this.#free = this.#nextFree(slot + 1);
  }

  /** Slot `slot` no longer holds the uid `key`. */
  #remove(key: string, slot: number): void {
    const count = this.#extra.get(key);
    if (count === undefined) {
      this.#first.delete(key);
      return;
    }
    if (count > 2) this.#extra.set(key, count - 1);
    else this.#extra.delete(key);
    if (this.#first.get(key) !== slot) return;
    // Held by a later slot too (this one was the first): that one is the first now.
    const from = (slot + 1) * SLOT_SIZE;
    const at =
      from < this.#length
        ? findSlot(this.#known.subarray(from, this.#length), this.#length - from, Buffer.from(key, 'latin1'))
        : -1;
    if (at >= 0) this.#first.set(key, slot + 1 + at);
    else this.#first.delete(key);
  }

  /** The first free slot from `slot` on, in the known table, or -1. */
  #nextFree(slot: number): number {
    const from = slot * SLOT_SIZE;
    if (from >= this.#length) return -1;
    // Workers mostly fill a table from its start: the next slot is usually
    // free, found without a native search over the rest of the table.
    if (slotIsFree(this.#known, from)) return slot;
    const at = findSlot(this.#known.subarray(from, this.#length), this.#length - from, FREE_SLOT);
    return at < 0 ? -1 : slot + at;
  }
}
