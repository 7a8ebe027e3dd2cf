/**
 * Byte layout of wool's same-host discovery objects (see docs/wool-wire.md).
 * @internal
 */

/** One slot: the raw 16 bytes of a worker's UUID; all zeros is free. */
export const SLOT_SIZE = 16;
/** 16 zero bytes: a free slot. */
export const FREE_SLOT: Buffer = Buffer.alloc(SLOT_SIZE);
/** Largest segment capacity a reader accepts by default (a process's own `capacity` raises it): a 16 MiB slot table. */
export const MAX_READ_CAPACITY = 1 << 20;

/**
 * The 16 raw bytes of a UUID, as wool stores them in a slot.
 *
 * @param uid A hyphenated UUID.
 * @returns 16 bytes.
 * @internal
 */
export function uidBytes(uid: string): Buffer {
  return Buffer.from(uid.replaceAll('-', ''), 'hex');
}

/** The ASCII codes of the two lowercase hex digits of each byte value, at 2 × byte. @internal */
export const HEX = new Uint8Array(512);
for (let byte = 0; byte < 256; byte += 1) {
  const digits = byte.toString(16).padStart(2, '0');
  HEX[2 * byte] = digits.charCodeAt(0);
  HEX[2 * byte + 1] = digits.charCodeAt(1);
}
/** Where each of the 16 bytes' two digits go in `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`. @internal */
export const POSITION = [0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34];
/** The UUID's character codes, hyphens in place; rewritten by each call. */
const CODES: number[] = new Array<number>(36).fill(0x2d);

/**
 * The hyphenated lowercase UUID held by 16 slot bytes.
 *
 * It runs once per journal record and per changed slot, on every
 * subscriber's hot path, so it is built from a byte → digits table as one
 * string rather than from `toString('hex')` and five slices.
 * @param table A buffer holding slots.
 * @param offset Byte offset of the slot.
 * @returns The UUID.
 * @internal
 */
export function slotUid(table: Uint8Array, offset: number): string {
  for (let i = 0; i < 16; i += 1) {
    const byte = table[offset + i] ?? 0;
    const at = POSITION[i] ?? 0;
    CODES[at] = HEX[2 * byte] ?? 0;
    CODES[at + 1] = HEX[2 * byte + 1] ?? 0;
  }
  return String.fromCharCode.apply(null, CODES);
}

/**
 * Whether 16 slot bytes hold a given uid: {@link slotUid}'s comparison,
 * without building the string (the fallback poll checks the copy of the
 * slot table with it, slot by slot).
 *
 * @example
 * slotHoldsUid(table, 16 * slot, 'c0ffee00-0000-4000-8000-000000000001');
 * @param table A buffer holding slots.
 * @param offset Byte offset of the slot.
 * @param uid A hyphenated lowercase UUID, as {@link slotUid} renders it (its hyphens are not compared).
 * @returns `true` when the slot holds exactly that uid.
 * @internal
 */
export function slotHoldsUid(table: Uint8Array, offset: number, uid: string): boolean {
  if (uid.length !== 36) return false;
  for (let i = 0; i < 16; i += 1) {
    const byte = table[offset + i] ?? 0;
    const at = POSITION[i] ?? 0;
    if (uid.charCodeAt(at) !== HEX[2 * byte] || uid.charCodeAt(at + 1) !== HEX[2 * byte + 1]) return false;
  }
  return true;
}

/**
 * Finds the first slot holding exactly `bytes` (16 bytes), looking only at
 * slot boundaries. Native `indexOf` does the searching.
 *
 * @param table The slots (no header).
 * @param length Bytes of `table` in use (`16 * capacity`).
 * @param bytes A UUID's 16 bytes, or 16 zeros for "first free slot".
 * @returns The slot index, or -1.
 * @internal
 */
export function findSlot(table: Buffer, length: number, bytes: Buffer): number {
  let from = 0;
  while (from < length) {
    const at = table.indexOf(bytes, from);
    if (at < 0 || at + SLOT_SIZE > length) return -1;
    const misalignment = at % SLOT_SIZE;
    if (misalignment === 0) return at / SLOT_SIZE;
    from = at + SLOT_SIZE - misalignment;
  }
  return -1;
}

/**
 * Whether two 16-byte slots hold the same bytes. A loop the JIT compiles
 * into a few loads: `Buffer.compare` pays a call into C++ and its argument
 * checks for 16 bytes, several times per changed slot under the lock.
 * @example
 * sameSlot(table, 16 * slot, known, 16 * slot);
 * @param a One buffer.
 * @param aOffset Byte offset of its slot.
 * @param b The other (or the same).
 * @param bOffset Byte offset of its slot.
 * @returns `true` when the 16 bytes are equal.
 * @internal
 */
export function sameSlot(a: Uint8Array, aOffset: number, b: Uint8Array, bOffset: number): boolean {
  for (let i = 0; i < SLOT_SIZE; i += 1) if (a[aOffset + i] !== b[bOffset + i]) return false;
  return true;
}

/**
 * Whether a 16-byte slot is free (all zeros); see {@link sameSlot} for why a loop.
 * @example
 * slotIsFree(table, 16 * slot);
 * @param table A buffer holding slots.
 * @param offset Byte offset of the slot.
 * @returns `true` when its 16 bytes are zeros.
 * @internal
 */
export function slotIsFree(table: Uint8Array, offset: number): boolean {
  for (let i = offset; i < offset + SLOT_SIZE; i += 1) if (table[i] !== 0) return false;
  return true;
}

/** Slot-table regions at most this large are compared slot by slot. */
const LEAF_BYTES = 256;

/**
 * Calls `changed` for every slot whose 16 bytes differ between two copies
 * of a slot table in [start, end): a bisection whose every step is one
 * native `memcmp`, so that a table where little changed costs a few
 * comparisons, not one per slot. The one diff of the writer's index and the
 * reader's mirror.
 * @example
 * diffSlots(read, known, 0, 16 * capacity, (offset) => apply(offset / 16));
 * @param a One copy.
 * @param b The other.
 * @param start Byte offset where to start (a slot boundary).
 * @param end Byte offset where to stop (a slot boundary).
 * @param changed Called with the byte offset of each slot that differs, in order.
 * @internal
 */
export function diffSlots(a: Buffer, b: Buffer, start: number, end: number, changed: (offset: number) => void): void {
  if (end <= start || a.compare(b, start, end, start, end) === 0) return;
  if (end - start <= LEAF_BYTES) {
    for (let offset = start; offset < end; offset += SLOT_SIZE) if (!sameSlot(a, offset, b, offset)) changed(offset);
    return;
  }
  const middle = start + Math.floor((end - start) / (2 * SLOT_SIZE)) * SLOT_SIZE;
  diffSlots(a, b, start, middle, changed);
  diffSlots(a, b, middle, end, changed);
}
