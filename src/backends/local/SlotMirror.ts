import { JOURNAL_DROPPED, type JournalRecord } from './Journal.js';
import { FREE_SLOT, SLOT_SIZE } from './layout.js';
import { SegmentFile } from './SegmentFile.js';
import { slotUid } from './slotUid.js';

/** Slot-table regions at most this large are compared slot by slot. */
const LEAF_BYTES = 256;

/**
 * A subscriber's copy of a namespace's slot table: which uid is in which
 * slot, and how many slots hold each uid, as last seen.
 *
 * {@link SlotMirror.read} reads the segment's table in one positioned read
 * and compares it with the copy by bisection (native `memcmp`), so that only
 * the slots that changed are looked at. {@link SlotMirror.applyRecord} keeps
 * the copy current from woolrx's journal records (each carries its slot), so
 * that the next read finds only what others (wool) changed. Anything a
 * record cannot explain makes the copy {@link SlotMirror.stale}: the caller
 * then compares every uid once.
 *
 * It also holds the segment it reads (read-only), re-opened when the name
 * points at another object.
 * @internal
 */
export class SlotMirror {
  /** The copy may disagree with the workers the subscriber knows: compare every uid at the next read. */
  stale = true;

  readonly #path: string;
  #segment: SegmentFile | undefined;
  /** The table as last seen (`#prevLength` bytes in use). */
  #prev: Buffer = Buffer.alloc(0);
  #cur: Buffer = Buffer.alloc(0);
  #prevLength = 0;
  /** The uid in each slot, per the copy. */
  readonly #slotUids: (string | undefined)[] = [];
  /** How many slots hold each uid, per the copy. */
  readonly #present = new Map<string, number>();
  #changed: Set<string> | undefined;

  /** @param path The segment's path. */
  constructor(path: string) {
    this.#path = path;
  }

  /**
   * @param uid A worker uid.
   * @returns Whether some slot holds `uid`, per the copy.
   */
  has(uid: string): boolean {
    return this.#present.has(uid);
  }

  /** @returns Every uid some slot holds, per the copy. */
  uids(): IterableIterator<string> {
    return this.#present.keys();
  }

  /**
   * Reads the segment's slot table and brings the copy up to date.
   * @param recheck Check first that the segment held is still the one the
   * name points at (after a notification of its removal, on a poll tick).
   * @returns The uids whose slots changed (added to, or removed from, a slot).
   */
  read(recheck: boolean): Set<string> {
    if (recheck && this.#segment !== undefined && !this.#segment.isAt(this.#path)) {
      this.#segment.close();
      this.#segment = undefined;
    }
    this.#segment ??= SegmentFile.open(this.#path, false);
    const capacity = this.#segment?.capacity() ?? 0;
    const length = SLOT_SIZE * capacity;
    const span = Math.max(length, this.#prevLength);
    if (this.#cur.length < span) {
      const grown = Buffer.alloc(span);
      this.#prev.copy(grown);
      this.#prev = grown;
      this.#cur = Buffer.alloc(span);
      this.#slotUids.length = span / SLOT_SIZE;
    }
    if (capacity > 0) this.#segment?.readTable(this.#cur, capacity);
    this.#cur.fill(0, length, span);
    const changed = new Set<string>();
    this.#changed = changed;
    this.#diff(0, span);
    this.#changed = undefined;
    const swap = this.#prev;
    this.#prev = this.#cur;
    this.#cur = swap;
    this.#prevLength = length;
    return changed;
  }

  /**
   * Applies a journal record's slot change to the copy. The segment showed
   * the change before the record was written, so the copy never runs ahead
   * of it. Anything unexpected (a slot holding another uid, a slot unknown)
   * makes the copy stale.
   * @param record The record.
   * @param uid Its uid, as a string.
   */
  applyRecord(record: JournalRecord, uid: string): void {
    if (this.stale) return;
    const slot = record.slot;
    if (slot === undefined || (slot + 1) * SLOT_SIZE > this.#prevLength) {
      this.stale = true;
      return;
    }
    const old = this.#slotUids[slot];
    if (old === uid) {
      if (record.type === JOURNAL_DROPPED) {
        this.#prev.fill(0, slot * SLOT_SIZE, (slot + 1) * SLOT_SIZE);
        this.#setSlot(slot, undefined);
      }
    } else if (record.type === JOURNAL_DROPPED) {
      // Already seen free (or taken again): fine unless the uid is still seen elsewhere.
      if (this.#present.has(uid)) this.stale = true;
    } else if (old === undefined) {
      record.uid.copy(this.#prev, slot * SLOT_SIZE, 0, SLOT_SIZE);
      this.#setSlot(slot, uid);
    } else {
      this.stale = true;
    }
  }

  /** Closes the segment. Idempotent. */
  close(): void {
    this.#segment?.close();
    this.#segment = undefined;
  }

  /** Updates the copy for each slot whose bytes differ between #prev and #cur in [start, end). */
  #diff(start: number, end: number): void {
    const cur = this.#cur;
    if (end <= start || cur.compare(this.#prev, start, end, start, end) === 0) return;
    if (end - start <= LEAF_BYTES) {
      for (let offset = start; offset < end; offset += SLOT_SIZE) {
        if (cur.compare(this.#prev, offset, offset + SLOT_SIZE, offset, offset + SLOT_SIZE) === 0) continue;
        const free = cur.compare(FREE_SLOT, 0, SLOT_SIZE, offset, offset + SLOT_SIZE) === 0;
        this.#setSlot(offset / SLOT_SIZE, free ? undefined : slotUid(cur, offset));
      }
      return;
    }
    const middle = start + Math.floor((end - start) / (2 * SLOT_SIZE)) * SLOT_SIZE;
    this.#diff(start, middle);
    this.#diff(middle, end);
  }

  /** Sets the copy's uid of one slot, keeping the counts; notes (during a read) uids whose presence may have changed. */
  #setSlot(slot: number, uid: string | undefined): void {
    const old = this.#slotUids[slot];
    if (old !== undefined) {
      const count = (this.#present.get(old) ?? 1) - 1;
      if (count > 0) this.#present.set(old, count);
      else this.#present.delete(old);
      this.#changed?.add(old);
    }
    this.#slotUids[slot] = uid;
    if (uid !== undefined) {
      this.#present.set(uid, (this.#present.get(uid) ?? 0) + 1);
      this.#changed?.add(uid);
    }
  }
}
