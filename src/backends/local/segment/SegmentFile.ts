import { closeSync, constants, fchmodSync, ftruncateSync } from 'node:fs';
import { STAT_INO, STAT_SIZE, statIds } from '../addon/statIds.js';
import { preadSync } from '../addon/preadSync.js';
import { pwriteSync } from '../addon/pwriteSync.js';
import { MAX_READ_CAPACITY, SLOT_SIZE } from './slotTable.js';
import { openSafe, openSafeIfExists } from '../safe-fs/safeFs.js';

/** Header: ASCII `WLD1`, u32 LE capacity, 8 zero bytes. */
export const HEADER_SIZE = 16;
/** `WLD1` read as a little-endian u32. */
export const MAGIC = 0x31444c57;

/**
 * Why a segment is not ready: `'no-header'` (shorter than its header),
 * `'no-magic'` (no `WLD1`: being created, or destroyed), `'zero-capacity'`,
 * `'too-large'` (a capacity above the reader's limit: never allocated
 * for), `'truncated'` (smaller than its slots).
 * @internal
 */
export type SegmentProblem = 'no-header' | 'no-magic' | 'zero-capacity' | 'too-large' | 'truncated';

/**
 * An open namespace segment (`/dev/shm/<short_hash(namespace)>`), read and
 * written with positioned I/O on its file descriptor. wool's layout, byte
 * for byte: `WLD1`, u32 LE capacity, 8 zero bytes, then `capacity` 16-byte
 * slots.
 *
 * Why not mmap through shm-typed-array: its POSIX objects carry a hidden
 * 8-byte size prefix before the user data, so neither its objects nor its
 * view of wool's objects match the wire layout (see docs/backends/local.md).
 * @internal
 */
export class SegmentFile {
  /** The file descriptor. */
  readonly fd: number;
  /** Inode number: tells whether the name still points at this object. */
  readonly ino: number;
  /** Largest capacity accepted from the header. */
  readonly maxCapacity: number;
  /** Why {@link SegmentFile.capacity} last answered `undefined`, with the capacity claimed. */
  problem: { readonly kind: SegmentProblem; readonly capacity: number; readonly size: number } | undefined;
  #capacity: number | undefined;

  private constructor(fd: number, ino: number, maxCapacity: number) {
    this.fd = fd;
    this.ino = ino;
    this.maxCapacity = maxCapacity;
  }

  /**
   * Opens an existing segment.
   * @param writable Open read-write (publishers) or read-only (subscribers).
   * @param maxCapacity Largest capacity accepted from the header.
   * @returns The segment, or `undefined` if there is none.
   * @throws {UnsafeObjectError} When the name is a symbolic link, another user's object, or writable by others.
   */
  static open(path: string, writable: boolean, maxCapacity = MAX_READ_CAPACITY): SegmentFile | undefined {
    const file = openSafeIfExists(path, writable ? constants.O_RDWR : constants.O_RDONLY);
    return file === undefined ? undefined : new SegmentFile(file.fd, file.ino, maxCapacity);
  }

  /**
   * Creates a segment exclusively: mode 0600, zero-filled, header written
   * last so that nobody sees a ready segment before it is complete.
   * @param capacity Its number of slots.
   * @returns The segment, or `undefined` if one already exists.
   */
  static create(path: string, capacity: number): SegmentFile | undefined {
    let fd: number;
    let ino: number;
    try {
      ({ fd, ino } = openSafe(path, constants.O_RDWR | constants.O_CREAT | constants.O_EXCL, 0o600));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') return undefined;
      throw error;
    }
    try {
      fchmodSync(fd, 0o600);
      ftruncateSync(fd, HEADER_SIZE + SLOT_SIZE * capacity);
      const header = Buffer.alloc(HEADER_SIZE);
      header.writeUInt32LE(MAGIC, 0);
      header.writeUInt32LE(capacity, 4);
      pwriteSync(fd, header, 0, HEADER_SIZE, 0);
    } catch (error) {
      closeSync(fd);
      throw error;
    }
    return new SegmentFile(fd, ino, Math.max(capacity, MAX_READ_CAPACITY));
  }

  /**
   * The capacity in the header, once the segment is ready: magic `WLD1`
   * present and the object large enough for its slots.
   * @returns The capacity, or `undefined` while not ready.
   */
  capacity(): number | undefined {
    if (this.#capacity !== undefined) return this.#capacity;
    const header = Buffer.alloc(HEADER_SIZE);
    const size = statIds(this.fd)?.[STAT_SIZE] ?? 0;
    if (preadSync(this.fd, header, 0, HEADER_SIZE, 0) < HEADER_SIZE) return this.#notReady('no-header', 0, size);
    if (header.readUInt32LE(0) !== MAGIC) return this.#notReady('no-magic', 0, size);
    const capacity = header.readUInt32LE(4);
    if (capacity === 0) return this.#notReady('zero-capacity', 0, size);
    // Another process's word: never allocated for beyond the limit.
    if (capacity > this.maxCapacity) return this.#notReady('too-large', capacity, size);
    if (size < HEADER_SIZE + SLOT_SIZE * capacity) return this.#notReady('truncated', capacity, size);
    this.problem = undefined;
    this.#capacity = capacity;
    return capacity;
  }

  #notReady(kind: SegmentProblem, capacity: number, size: number): undefined {
    this.problem = { kind, capacity, size };
    return undefined;
  }

  /**
   * Forgets the capacity read from the header, so that the next
   * {@link SegmentFile.capacity} reads the header again (a fallback poll
   * tick: finds a header destroyed or a segment truncated since).
   */
  recheck(): void {
    this.#capacity = undefined;
  }

  /**
   * Reads every slot.
   * @param into A buffer of at least `16 * capacity` bytes.
   * @param capacity The ready capacity.
   * @returns Whether every slot was read: `false` when the segment was
   * truncated since it was found ready (the missing slots then read as free,
   * and {@link SegmentFile.problem} says so).
   */
  readTable(into: Buffer, capacity: number): boolean {
    const length = SLOT_SIZE * capacity;
    let done = 0;
    while (done < length) {
      const n = preadSync(this.fd, into, done, length - done, HEADER_SIZE + done);
      if (n === 0) {
        into.fill(0, done, length);
        this.problem = { kind: 'truncated', capacity, size: HEADER_SIZE + done };
        this.#capacity = undefined;
        return false;
      }
      done += n;
    }
    return true;
  }

  /**
   * Whether some slot holds a worker (one read of the table; slots cut off
   * by a truncation read as free).
   * @param capacity The ready capacity.
   * @returns Whether a slot is taken.
   */
  anySlotTaken(capacity: number): boolean {
    const table = Buffer.alloc(SLOT_SIZE * capacity);
    this.readTable(table, capacity);
    for (let i = 0; i < table.length; i += 8) if (table.readBigUInt64LE(i) !== 0n) return true;
    return false;
  }

  /**
   * Reads consecutive slots in one read.
   * @param first The first slot number (below the ready capacity).
   * @param count How many slots (`into` holds them).
   * @returns How many whole slots were read.
   */
  readSlots(first: number, count: number, into: Buffer): number {
    const n = preadSync(this.fd, into, 0, SLOT_SIZE * count, HEADER_SIZE + SLOT_SIZE * first);
    return Math.floor(n / SLOT_SIZE);
  }

  /**
   * Writes one slot.
   * @param index The slot number.
   * @param bytes 16 bytes: a UUID, or zeros to free it.
   */
  writeSlot(index: number, bytes: Buffer): void {
    pwriteSync(this.fd, bytes, 0, SLOT_SIZE, HEADER_SIZE + SLOT_SIZE * index);
  }

  /**
   * @returns Whether `path` still names this object (not unlinked, not replaced).
   */
  isAt(path: string): boolean {
    return statIds(path)?.[STAT_INO] === this.ino;
  }

  /** Closes the descriptor. Idempotent. */
  close(): void {
    try {
      closeSync(this.fd);
    } catch {
      // Already closed.
    }
  }
}
