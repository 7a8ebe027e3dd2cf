import { diffSlots, sameSlot, SLOT_SIZE, slotHoldsUid, slotIsFree, slotUid } from './slotTable.js';
import { SegmentFile, type SegmentProblem } from './SegmentFile.js';

/** Something wrong with the segment, to report (see {@link MirrorRead.problem}). @internal */
export interface SegmentReport {
  readonly kind: SegmentProblem;
  /** The capacity its header claims. */
  readonly capacity: number;
  /** Its size, in bytes. */
  readonly size: number;
  /** The largest capacity read. */
  readonly maxCapacity: number;
}

/** What one {@link SlotMirror.read} found. @internal */
export interface MirrorRead {
  /** The uids whose slots changed (added to, or removed from, a slot). */
  readonly changed: Set<string>;
  /**
   * The copy was stale before this read (a record it could not follow, or
   * {@link SlotMirror.invalidate}): it may disagree with the workers the
   * subscriber knows, so compare every uid once.
   */
  readonly stale: boolean;
  /**
   * Nothing was read: the segment, read whole before, cannot be read now
   * (its header destroyed or claiming an impossible capacity, or the object
   * truncated). That is damage, not a change: the copy — and the workers
   * the subscriber knows — are kept as last read, until the segment can be
   * read again or its name points at another object (or none).
   */
  readonly held: boolean;
  /**
   * The first read whole after reads that {@link MirrorRead.held}: changes
   * made meanwhile were not followed (journal records cannot be checked
   * against a segment that cannot be read), so compare every block too.
   */
  readonly resumed: boolean;
  /** The segment is usable (or absent): nothing to report. */
  readonly healthy: boolean;
  /**
   * What is wrong with the segment — its `WLD1` header destroyed, truncated,
   * a capacity beyond the limit — once it has lasted from one read to the
   * next (a creator writes the header last), or was found while reading.
   */
  readonly problem: SegmentReport | undefined;
}

/** Slots whose uid in the copy is checked against the table per verifying read (see {@link SlotMirror.read}). */
export const VERIFY_SLOTS = 256;
/** Slots {@link SlotMirror.holds} reads at once: publishes in a burst take slots next to each other. */
export const HOLDS_WINDOW = 64;

const NOTHING = new Set<string>();

/**
 * A subscriber's copy of a namespace's slot table: which uid is in which
 * slot, and how many slots hold each uid, as last seen.
 *
 * {@link SlotMirror.read} reads the segment's table in one positioned read
 * and compares it with the copy by bisection (native `memcmp`), so that only
 * the slots that changed are looked at. {@link SlotMirror.apply} keeps
 * the copy current from woolrx's journal records (each carries its slot), so
 * that the next read finds only what others (wool) changed. Anything a
 * record cannot explain makes the copy stale: the next read says so, and
 * the caller then compares every uid once.
 *
 * The bisection trusts that the copy's uids match the copy's bytes; a
 * verifying read (the fallback poll's) also checks a round-robin slice of
 * the copy's uids against the table just read, so that a copy that ever
 * diverged from it re-converges instead of staying wrong.
 *
 * It also holds the segment it reads (read-only), re-opened when the name
 * points at another object.
 * @internal
 */
export class SlotMirror {
  #stale = true;

  readonly #path: string;
  readonly #maxCapacity: number | undefined;
  #segment: SegmentFile | undefined;
  /** The table as last seen (`#prevLength` bytes in use). */
  #prev: Buffer = Buffer.alloc(0);
  #cur: Buffer = Buffer.alloc(0);
  #prevLength = 0;
  /** The uid in each slot, per the copy. */
  readonly #slotUids: (string | undefined)[] = [];
  /** The uids some slot holds, per the copy. */
  readonly #present = new Set<string>();
  /**
   * How many slots besides the first hold a uid, only for uids in more than
   * one: a set and this instead of a count for every uid, which would take a
   * larger table by uid beside the subscriber's entries.
   */
  readonly #extra = new Map<string, number>();
  #changed: Set<string> | undefined;
  /** The slots {@link SlotMirror.holds} read last: `#windowCount` from `#windowFirst`, of `#windowSegment`. */
  readonly #window = Buffer.alloc(HOLDS_WINDOW * SLOT_SIZE);
  #windowSegment: SegmentFile | undefined;
  #windowFirst = 0;
  #windowCount = 0;
  /**
   * The inode of the segment last read whole: when it can no longer be read, the copy is held (see
   * {@link MirrorRead.held}).
   */
  #goodIno = -1;
  /** The last read held the copy. */
  #held = false;
  /** The next slot a verifying read checks. */
  #verifyAt = 0;

  /**
   * @param maxCapacity Largest capacity accepted from the segment's header.
   */
  constructor(path: string, maxCapacity?: number) {
    this.#path = path;
    this.#maxCapacity = maxCapacity;
  }

  /** The copy may disagree with the workers the subscriber knows (the next read will say so). */
  get stale(): boolean {
    return this.#stale;
  }

  /** Marks the copy stale: the next read asks for every uid to be compared. */
  invalidate(): void {
    this.#stale = true;
  }

  /** The last read {@link MirrorRead.held} the copy: the segment cannot be read, what it holds is not known. */
  get held(): boolean {
    return this.#held;
  }

  /** How many distinct uids the copy holds. */
  get size(): number {
    return this.#present.size;
  }

  /** How many slots the copy has (the capacity last read; 0 when there is no table). */
  get slots(): number {
    return this.#prevLength / SLOT_SIZE;
  }

  /** @returns The uid in slot `slot`, per the copy, or `undefined` (free, or no such slot). */
  uidAt(slot: number): string | undefined {
    return slot < this.#prevLength / SLOT_SIZE ? this.#slotUids[slot] : undefined;
  }

  /**
   * @returns Whether some slot holds `uid`, per the copy.
   */
  has(uid: string): boolean {
    return this.#present.has(uid);
  }

  /**
   * Whether the segment's slot holds a worker now (a read of the segment,
   * not of the copy): what a journal record claims is checked against it. A
   * segment replaced since it was opened is re-opened. The read takes the
   * slots after it too, up to `ahead` of them ({@link HOLDS_WINDOW} at
   * most), for the later checks of the same batch of records, which ask
   * with `fresh` false.
   * @param slot The slot number, or `undefined` (never held).
   * @param uid The worker's 16 UUID bytes.
   * @param fresh Read the segment now; `false`: the slots the last read took
   * answer, when they hold the uid (anything else is read again).
   * @param ahead How many slots to read, from this one, when reading (the
   * checks of the batch still to come, this one included).
   * @returns `false` also when there is no usable segment or no such slot.
   */
  holds(slot: number | undefined, uid: Buffer, fresh = true, ahead = 1): boolean {
    // A batch's first check forgets the last batch's slots, even when it reads none itself.
    if (fresh) this.#windowSegment = undefined;
    if (slot === undefined) return false;
    if (
      this.#windowSegment !== undefined &&
      this.#windowSegment === this.#segment &&
      slot >= this.#windowFirst &&
      slot < this.#windowFirst + this.#windowCount &&
      sameSlot(this.#window, (slot - this.#windowFirst) * SLOT_SIZE, uid, 0)
    ) {
      return true;
    }
    this.#windowSegment = undefined;
    for (let attempt = 0; ; attempt += 1) {
      const segment = (this.#segment ??= SegmentFile.open(this.#path, false, this.#maxCapacity));
      if (segment === undefined) return false;
      const capacity = segment.capacity();
      const count =
        capacity !== undefined && slot < capacity
          ? segment.readSlots(slot, Math.max(1, Math.min(HOLDS_WINDOW, ahead, capacity - slot)), this.#window)
          : 0;
      if (count > 0) {
        this.#windowSegment = segment;
        this.#windowFirst = slot;
        this.#windowCount = count;
      }
      if (count > 0 && sameSlot(this.#window, 0, uid, 0)) return true;
      if (attempt > 0 || segment.isAt(this.#path)) return false;
      segment.close();
      this.#segment = undefined;
    }
  }

  /** @returns Every uid some slot holds, per the copy. */
  uids(): IterableIterator<string> {
    return this.#present.values();
  }

  /**
   * Reads the segment's slot table and brings the copy up to date.
   * @param recheck Check first that the segment held is still the one the
   * name points at (after a notification of its removal, on a poll tick).
   * @param verify Also check this many slots of the copy (round-robin)
   * against the table read, beyond the bisection: a uid found wrong is
   * corrected and reported changed, and the read is then stale.
   * @returns What it found.
   */
  read(recheck: boolean, verify = 0): MirrorRead {
    if (recheck && this.#segment !== undefined && !this.#segment.isAt(this.#path)) {
      this.#segment.close();
      this.#segment = undefined;
    }
    // A poll tick (or a moved notification) also re-reads the header.
    if (recheck) this.#segment?.recheck();
    this.#segment ??= SegmentFile.open(this.#path, false, this.#maxCapacity);
    const segment = this.#segment;
    const capacity = segment?.capacity();
    let length = SLOT_SIZE * (capacity ?? 0);
    const span = Math.max(length, this.#prevLength);
    if (this.#cur.length < span) {
      const grown = Buffer.alloc(span);
      this.#prev.copy(grown);
      this.#prev = grown;
      this.#cur = Buffer.alloc(span);
      this.#slotUids.length = span / SLOT_SIZE;
    }
    const whole = segment !== undefined && capacity !== undefined && segment.readTable(this.#cur, capacity);
    if (!whole) {
      // Read whole before, unreadable now: damage, held (see MirrorRead.held).
      if (segment !== undefined && segment.ino === this.#goodIno) return this.#hold();
      // Absent, or never ready yet (a creator writes the header last): no slots.
      length = 0;
    } else {
      this.#goodIno = segment.ino;
    }
    // Zeros up to the buffer's end, not only the span: after the swap below
    // the bisection of a later, larger read compares with them.
    this.#cur.fill(0, length);
    const changed = new Set<string>();
    this.#changed = changed;
    this.#diff(span);
    const swap = this.#prev;
    this.#prev = this.#cur;
    this.#cur = swap;
    this.#prevLength = length;
    const repaired = verify > 0 && this.#verify(verify);
    this.#changed = undefined;
    const resumed = this.#held;
    this.#held = false;
    const stale = this.#stale || resumed || repaired;
    this.#stale = false;
    return { changed, stale, held: false, resumed, ...this.#problem() };
  }

  /**
   * A read that keeps the copy: the segment, read whole before, cannot be
   * read. Staleness waits for the first read whole (which is then stale), so
   * that scans while held are not asked for again and again.
   */
  #hold(): MirrorRead {
    this.#held = true;
    this.#stale = false;
    return { changed: NOTHING, stale: false, held: true, resumed: false, ...this.#problem() };
  }

  /**
   * Checks `count` slots of the copy (round-robin) against the table just
   * read into #prev; corrects those whose uid is wrong.
   * @returns Whether any was wrong.
   */
  #verify(count: number): boolean {
    const slots = this.#prevLength / SLOT_SIZE;
    // Slots the copy knows beyond the table (it shrank, or is gone) must hold nothing.
    const span = Math.max(slots, this.#slotUids.length);
    const prev = this.#prev;
    let slot = this.#verifyAt < span ? this.#verifyAt : 0;
    let wrong = false;
    for (let n = Math.min(count, span); n > 0; n -= 1) {
      const held = this.#slotUids[slot];
      const offset = slot * SLOT_SIZE;
      const free = slot >= slots || slotIsFree(prev, offset);
      // Compared without building the uid's string (only a wrong one is built).
      if (held === undefined ? !free : free || !slotHoldsUid(prev, offset, held)) {
        this.#setSlot(slot, free ? undefined : slotUid(prev, offset));
        wrong = true;
      }
      slot = slot + 1 === span ? 0 : slot + 1;
    }
    this.#verifyAt = slot;
    return wrong;
  }

  /** The segment's problem, once worth reporting; the segment forgets it then. */
  #problem(): { healthy: boolean; problem: SegmentReport | undefined } {
    const segment = this.#segment;
    const problem = segment?.problem;
    if (segment === undefined || problem === undefined) return { healthy: true, problem: undefined };
    // An instant's state (a creator writing the header last) is reported only if it lasts to the next look.
    if (segment.capacity() !== undefined && problem.kind !== 'truncated') return { healthy: false, problem: undefined };
    segment.problem = undefined;
    return { healthy: false, problem: { ...problem, maxCapacity: segment.maxCapacity } };
  }

  /**
   * Applies a slot change a writer reported (a journal record) to the copy.
   * The segment showed the change before it was reported, so the copy never
   * runs ahead of it. Anything unexpected (a slot holding another uid, a
   * slot unknown) makes the copy stale.
   * @param slot The slot the change was made in, if known.
   * @param bytes The worker's 16 UUID bytes.
   * @param uid The same uid, as a string.
   * @param taken Whether the slot now holds the worker (`false`: it was freed).
   */
  apply(slot: number | undefined, bytes: Buffer, uid: string, taken: boolean): void {
    if (this.#stale) return;
    if (slot === undefined || (slot + 1) * SLOT_SIZE > this.#prevLength) {
      this.#stale = true;
      return;
    }
    const old = this.#slotUids[slot];
    if (old === uid) {
      if (!taken) {
        this.#prev.fill(0, slot * SLOT_SIZE, (slot + 1) * SLOT_SIZE);
        this.#setSlot(slot, undefined);
      }
    } else if (!taken) {
      // Already seen free (or taken again): fine unless the uid is still seen elsewhere.
      if (this.#present.has(uid)) this.#stale = true;
    } else if (old === undefined) {
      bytes.copy(this.#prev, slot * SLOT_SIZE, 0, SLOT_SIZE);
      this.#setSlot(slot, uid);
    } else {
      this.#stale = true;
    }
  }

  /** Closes the segment. Idempotent. */
  close(): void {
    this.#segment?.close();
    this.#segment = undefined;
  }

  /** Updates the copy for each slot whose bytes differ between #prev and #cur. */
  #diff(length: number): void {
    diffSlots(this.#cur, this.#prev, 0, length, this.#changedSlot);
  }

  readonly #changedSlot = (offset: number): void => {
    const cur = this.#cur;
    this.#setSlot(offset / SLOT_SIZE, slotIsFree(cur, offset) ? undefined : slotUid(cur, offset));
  };

  /**
   * Sets the copy's uid of one slot, keeping the counts; notes (during a read) uids whose presence
   * may have changed.
   */
  #setSlot(slot: number, uid: string | undefined): void {
    const old = this.#slotUids[slot];
    if (old !== undefined) {
      const extra = this.#extra.get(old);
      if (extra === undefined) this.#present.delete(old);
      else if (extra > 1) this.#extra.set(old, extra - 1);
      else this.#extra.delete(old);
      this.#changed?.add(old);
    }
    this.#slotUids[slot] = uid;
    if (uid !== undefined) {
      if (!this.#present.has(uid)) this.#present.add(uid);
      else this.#extra.set(uid, (this.#extra.get(uid) ?? 0) + 1);
      this.#changed?.add(uid);
    }
  }
}
