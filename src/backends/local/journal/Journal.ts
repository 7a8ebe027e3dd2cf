import { randomBytes } from 'node:crypto';
import { closeSync, constants, ftruncateSync, unlinkSync } from 'node:fs';
import { STAT_NLINK, statIds } from '../addon/statIds.js';
import { preadSync } from '../addon/preadSync.js';
import { pwriteSync } from '../addon/pwriteSync.js';
import type { DropReason } from '../../../events/types.js';
import { FlockUnavailableError } from '../addon/FlockUnavailableError.js';
import { flock, loadFlock } from '../lock/flockAddon.js';
import { openSafe, openSafeIfExists } from '../safe-fs/safeFs.js';

const MAGIC = 0x32585257; // 'WRX2' read as LE u32 (format 2: records carry their slot)
const HEADER_SIZE = 64;
const RECORD_HEADER = 40;
/**
 * Why a file at the journal's path is not used, by kind:
 * - `another-format`: a journal of another woolrx format (no corruption: not reported);
 * - `no-magic`, `short`: no journal header yet — being created, or destroyed;
 * - `bad-header`: a record size or count no woolrx journal has, or a header
 *   that changed under its reader (nobody rewrites it: corruption).
 * @internal
 */
export interface JournalFault {
  readonly code: 'another-format' | 'no-magic' | 'short' | 'bad-header';
  /** What is wrong, in words, for a report: `it …`. */
  readonly message: string;
}

const ANOTHER_FORMAT: JournalFault = { code: 'another-format', message: 'it is of another woolrx journal format' };
const NO_MAGIC: JournalFault = { code: 'no-magic', message: 'it has no WRX2 magic (being created, or destroyed)' };
/** Largest payload a record may hold: a block of the largest `blockSize` (16 MiB). */
const MAX_RECORD_PAYLOAD = 1 << 24;
/** Slot field meaning "not known". */
const NO_SLOT = 0xffffffff;
/** Records the ring holds: a subscriber further behind than this rescans instead. */
export const JOURNAL_RECORDS = 512;
/** Payload length meaning "too large for the journal: read the worker's block". */
export const SEE_BLOCK = 0xffffffff;
/** Most bytes {@link Journal.readRange} reads at once. */
const RANGE_BYTES = 64 * 1024;

/**
 * `flock(2)` is available here (woolrx's prebuilt addon loads); otherwise journals are neither
 * flocked nor removed while a segment stays.
 */
function flockAvailable(): boolean {
  try {
    loadFlock();
    return true;
  } catch (error) {
    if (error instanceof FlockUnavailableError) return false;
    throw error;
  }
}

/**
 * Takes a non-blocking `flock(2)` on a descriptor.
 * @returns `false` when another descriptor holds a conflicting lock (or,
 * for an exclusive lock, when the addon is unavailable: nobody can be told apart).
 */
function tryFlock(fd: number, how: 'shnb' | 'exnb'): boolean {
  if (!flockAvailable()) return how === 'shnb';
  return flock(fd, how);
}

/** A u64 LE below 2^53 as a number (no BigInt: this runs for every record). */
function readU64(buffer: Buffer, offset: number): number {
  return buffer.readUInt32LE(offset) + buffer.readUInt32LE(offset + 4) * 0x1_0000_0000;
}

function writeU64(buffer: Buffer, offset: number, value: number): void {
  buffer.writeUInt32LE(value % 0x1_0000_0000, offset);
  buffer.writeUInt32LE(Math.floor(value / 0x1_0000_0000), offset + 4);
}

/** Kinds of journal record. @internal */
export const JOURNAL_ADDED = 1;
export const JOURNAL_UPDATED = 2;
export const JOURNAL_DROPPED = 3;

/** The drop reasons a journal record says, by their byte (0: not said, as before the byte was used). */
const DROP_REASON_CODES: readonly (DropReason | undefined)[] = [undefined, 'withdrawn', 'process-gone'];

/** One journal record. @internal */
export interface JournalRecord {
  readonly seq: number;
  readonly type: number;
  /** Raw 16 UUID bytes. */
  readonly uid: Buffer;
  /** The slot the change was made in (the segment already showed it when the record was written). */
  readonly slot: number | undefined;
  /** The record as a block holds it (u32 LE length + protobuf), or `undefined` (drop, or see the block). */
  readonly record: Buffer | undefined;
  /** The payload did not fit in the journal: read the block. */
  readonly seeBlock: boolean;
  /** Why a worker was dropped, when its writer said (`JOURNAL_DROPPED` only). */
  readonly reason?: DropReason | undefined;
}

/**
 * woolrx's change journal of a namespace: a ring of the last
 * {@link JOURNAL_RECORDS} changes, appended by woolrx publishers under the
 * namespace lock, in `/dev/shm/woolrx-lock-<short_hash(ns)>/journal`.
 *
 * The shared segment holds only the current state, so a subscriber that
 * scans it sees the net effect of changes made between two scans (an add
 * and a drop in between: nothing). The journal lets woolrx subscribers
 * replay every change in order, with the metadata of each step. wool knows
 * nothing of it: wool's own changes are found by scanning the segment.
 *
 * Layout (little-endian): header of 64 bytes — magic `WRX2`, u32 record
 * size, u32 record count, 4 reserved, u64 head (next sequence number), u64
 * epoch (random, new for each journal file) — then `count` records of
 * `recordSize` bytes: u64 seq, u8 type (1 added, 2 updated, 3 dropped), u8
 * drop reason (0 not said, 1 withdrawn, 2 its process gone), 2 reserved,
 * u32 payload length (0xFFFFFFFF: see the block), 16 UUID bytes,
 * u32 slot (0xFFFFFFFF: unknown), 4 reserved, payload. A record is written
 * once the segment shows its change (block and slot). A writer writes a
 * record, then the head; a reader reads the head, the records up to it
 * (checking each record's seq), then the head again to detect records
 * overwritten meanwhile. A file of another format is not used (openForRead
 * and openForWrite return `undefined`): subscribers then find every change
 * by scanning, as they do wool's.
 *
 * Whoever has it open (a publisher, a subscriber) holds a shared `flock` on
 * it for as long: the last woolrx process to leave a namespace whose
 * segment stays (wool's, or holding wool's workers) removes the journal
 * when no one else holds it ({@link Journal.removeIfUnused}), since wool,
 * leaving last, would not.
 * @internal
 */
export class Journal {
  readonly fd: number;
  readonly recordSize: number;
  readonly count: number;
  readonly epoch: bigint;
  readonly #header: Buffer;
  #scratch: Buffer;
  /** What {@link Journal.readRange} reads runs of records into (made at its first run, kept). */
  #range: Buffer | undefined;
  /**
   * The head this writer's last {@link Journal.append} left, while the
   * namespace lock it was written under is still held (see
   * {@link Journal.forgetHead}); `undefined`: read it from the file.
   */
  #written: number | undefined;

  /** @param fd A descriptor whose header Journal.#readHeader accepted, read into `header`. */
  private constructor(fd: number, header: Buffer) {
    this.fd = fd;
    this.#header = header;
    this.recordSize = header.readUInt32LE(4);
    this.count = header.readUInt32LE(8);
    this.epoch = header.readBigUInt64LE(24);
    this.#scratch = Buffer.alloc(this.recordSize);
  }

  /**
   * What is wrong with a journal header, or `undefined` when it is one of
   * this format with a possible record size and count.
   */
  static #headerProblem(header: Buffer): JournalFault | undefined {
    if (header.readUInt32LE(0) !== MAGIC) {
      // Another woolrx format (an older woolrx's `WRXJ`) is left alone, as documented; anything else is not a journal.
      if ((header.readUInt32LE(0) & 0xffffff) === (MAGIC & 0xffffff)) return ANOTHER_FORMAT;
      return NO_MAGIC;
    }
    const recordSize = header.readUInt32LE(4);
    const count = header.readUInt32LE(8);
    // Another process's word: never allocated for beyond what a woolrx
    // journal can hold (records of a block of at most 16 MiB).
    if (recordSize < RECORD_HEADER || recordSize > RECORD_HEADER + MAX_RECORD_PAYLOAD) {
      const possible = `${RECORD_HEADER} to ${RECORD_HEADER + MAX_RECORD_PAYLOAD} possible`;
      return { code: 'bad-header', message: `its header claims a record size of ${recordSize} bytes (${possible})` };
    }
    if (count < 1 || count > JOURNAL_RECORDS) {
      return {
        code: 'bad-header',
        message: `its header claims a record count of ${count} (1 to ${JOURNAL_RECORDS} possible)`,
      };
    }
    return undefined;
  }

  /** Reads the header of `fd`; why it is unusable unless it is a journal of this format. */
  static #readHeader(fd: number): Buffer | JournalFault {
    const header = Buffer.alloc(HEADER_SIZE);
    if (preadSync(fd, header, 0, HEADER_SIZE, 0) < HEADER_SIZE) {
      return { code: 'short', message: `it is shorter than its ${HEADER_SIZE}-byte header` };
    }
    return Journal.#headerProblem(header) ?? header;
  }

  /**
   * Opens the journal, creating it (exclusively, mode 0600) if missing. Call under the namespace lock.
   * @param path The journal's path (its directory exists: the lock is in it).
   * @param payloadCapacity Largest payload a record holds, when creating.
   * @returns The journal, or `undefined` if the file there has another format.
   */
  static openForWrite(path: string, payloadCapacity: number): Journal | undefined {
    let existing: number | undefined;
    try {
      existing = openSafe(path, constants.O_RDWR).fd;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    if (existing !== undefined) return Journal.#adopt(existing);
    const { fd } = openSafe(path, constants.O_RDWR | constants.O_CREAT | constants.O_EXCL, 0o600);
    try {
      const recordSize = RECORD_HEADER + payloadCapacity;
      ftruncateSync(fd, HEADER_SIZE + recordSize * JOURNAL_RECORDS);
      const header = Buffer.alloc(HEADER_SIZE);
      header.writeUInt32LE(recordSize, 4);
      header.writeUInt32LE(JOURNAL_RECORDS, 8);
      header.writeBigUInt64LE(0n, 16);
      randomBytes(8).copy(header, 24);
      header.writeUInt32LE(MAGIC, 0);
      pwriteSync(fd, header, 0, HEADER_SIZE, 0);
      // Under the namespace lock: nobody is removing it.
      tryFlock(fd, 'shnb');
      return new Journal(fd, header);
    } catch (error) {
      closeSync(fd);
      throw error;
    }
  }

  /**
   * Opens an existing journal read-only.
   * @param unusable Told why, when there is a file but not a usable journal
   * (another format, a corrupt header).
   * @returns The journal, or `undefined` if there is none (or it is not initialised yet).
   */
  static openForRead(path: string, unusable?: (fault: JournalFault) => void): Journal | undefined {
    const file = openSafeIfExists(path, constants.O_RDONLY);
    return file === undefined ? undefined : Journal.#adopt(file.fd, unusable);
  }

  /**
   * Wraps an open descriptor, holding a shared `flock` on it; closes it and
   * returns `undefined` if it is not a journal of this format, or is being
   * removed (its remover holds an exclusive `flock`).
   */
  static #adopt(fd: number, unusable?: (fault: JournalFault) => void): Journal | undefined {
    try {
      const header = tryFlock(fd, 'shnb') ? Journal.#readHeader(fd) : undefined;
      if (header === undefined || !Buffer.isBuffer(header)) {
        if (header !== undefined) unusable?.(header);
        closeSync(fd);
        return undefined;
      }
      return new Journal(fd, header);
    } catch {
      closeSync(fd);
      return undefined;
    }
  }

  /**
   * Removes the journal if no process has it open (as a {@link Journal}:
   * each holds a shared `flock`). Call under the namespace lock, with this
   * process's own journals closed.
   * @returns Whether there is no journal left.
   * @internal
   */
  static removeIfUnused(path: string): boolean {
    const file = openSafeIfExists(path, constants.O_RDONLY);
    if (file === undefined) return true;
    const { fd } = file;
    try {
      if (!tryFlock(fd, 'exnb')) return false;
      unlinkSync(path);
      return true;
    } finally {
      closeSync(fd);
    }
  }

  /**
   * Reads the head (with the header's magic, record size and count, in the
   * same read: see {@link Journal.headerChanged}).
   * @returns The next sequence number to be written.
   */
  head(): number {
    preadSync(this.fd, this.#header, 0, 24, 0);
    return readU64(this.#header, 16);
  }

  /**
   * Whether the magic, record size or count read by the last
   * {@link Journal.head} differ from those the journal was opened with
   * (nobody rewrites them: corruption).
   * @returns Why the journal is no longer usable, or `undefined`.
   */
  headerChanged(): JournalFault | undefined {
    const header = this.#header;
    const recordSize = header.readUInt32LE(4);
    const count = header.readUInt32LE(8);
    if (header.readUInt32LE(0) === MAGIC && recordSize === this.recordSize && count === this.count) return undefined;
    const change = `record size ${this.recordSize} → ${recordSize}, count ${this.count} → ${count}`;
    return Journal.#headerProblem(header) ?? { code: 'bad-header', message: `its header changed (${change})` };
  }

  /** @returns Whether the file still has a name (it is unlinked by the last one out). */
  isLinked(): boolean {
    return (statIds(this.fd)?.[STAT_NLINK] ?? 0) > 0;
  }

  /**
   * Forgets the head the last append left: to call whenever the namespace
   * lock is taken afresh (another holder may have appended since). While
   * the lock stays held, appends take the head they left instead of
   * reading it.
   */
  forgetHead(): void {
    this.#written = undefined;
  }

  /**
   * Appends one record. Call under the namespace lock.
   * @param type JOURNAL_ADDED, JOURNAL_UPDATED or JOURNAL_DROPPED.
   * @param uid The worker's 16 UUID bytes.
   * @param slot The slot the change was made in.
   * @param payload The protobuf bytes (added/updated), or `undefined`.
   * @param reason Why the worker is dropped (`JOURNAL_DROPPED`).
   */
  append(type: number, uid: Buffer, slot: number, payload: Uint8Array | undefined, reason?: DropReason): void {
    const seq = this.#written ?? this.head();
    const fits = payload === undefined || RECORD_HEADER + payload.length <= this.recordSize;
    const length = payload === undefined ? 0 : payload.length;
    const size = RECORD_HEADER + (fits ? length : 0);
    const record = this.#scratch;
    record.fill(0, 0, RECORD_HEADER);
    writeU64(record, 0, seq);
    record.writeUInt8(type, 8);
    if (reason !== undefined) record.writeUInt8(Math.max(0, DROP_REASON_CODES.indexOf(reason)), 9);
    record.writeUInt32LE(fits ? length : SEE_BLOCK, 12);
    uid.copy(record, 16, 0, 16);
    record.writeUInt32LE(slot >= 0 && slot < NO_SLOT ? slot : NO_SLOT, 32);
    if (fits && payload !== undefined) record.set(payload, RECORD_HEADER);
    pwriteSync(this.fd, record, 0, size, HEADER_SIZE + (seq % this.count) * this.recordSize);
    const head = this.#header;
    writeU64(head, 16, seq + 1);
    this.#written = undefined;
    pwriteSync(this.fd, head, 16, 8, 16);
    this.#written = seq + 1;
  }

  /**
   * Reads the record of sequence number `seq`.
   * @param seq The sequence number.
   * @returns The record, or `undefined` if its slot now holds another (overwritten) or is torn.
   */
  read(seq: number): JournalRecord | undefined {
    const scratch = this.#scratch;
    const n = preadSync(this.fd, scratch, 0, this.recordSize, HEADER_SIZE + (seq % this.count) * this.recordSize);
    return this.#parse(scratch, 0, n, seq);
  }

  /**
   * Reads the records of sequence numbers `from` up to `to` (excluded), in
   * one read per run of records that lie next to each other in the ring (up
   * to 64 KiB): a subscriber behind a burst of publishes takes them in a
   * few reads instead of one each.
   * @param into Where the records go, in order.
   * @returns `false` at the first record that cannot be read (overwritten or
   * torn): the records before it are in `into`.
   */
  readRange(from: number, to: number, into: JournalRecord[]): boolean {
    const size = this.recordSize;
    const most = Math.floor(RANGE_BYTES / size);
    for (let seq = from; seq < to;) {
      const index = seq % this.count;
      const run = Math.min(to - seq, this.count - index, most);
      if (run <= 1) {
        const record = this.read(seq);
        if (record === undefined) return false;
        into.push(record);
        seq += 1;
        continue;
      }
      const range = (this.#range ??= Buffer.allocUnsafe(most * size));
      const n = preadSync(this.fd, range, 0, run * size, HEADER_SIZE + index * size);
      for (let i = 0; i < run; i += 1, seq += 1) {
        const record = this.#parse(range, i * size, Math.min(size, n - i * size), seq);
        if (record === undefined) return false;
        into.push(record);
      }
    }
    return true;
  }

  /**
   * The record at `at` in `bytes`, of which `n` were read.
   * @returns It, or `undefined` if it is not record `seq` (overwritten) or is torn.
   */
  #parse(bytes: Buffer, at: number, n: number, seq: number): JournalRecord | undefined {
    if (n < RECORD_HEADER || readU64(bytes, at) !== seq) return undefined;
    const type = bytes.readUInt8(at + 8);
    const length = bytes.readUInt32LE(at + 12);
    const uid = Buffer.allocUnsafe(16);
    bytes.copy(uid, 0, at + 16, at + 32);
    const rawSlot = bytes.readUInt32LE(at + 32);
    const slot = rawSlot === NO_SLOT ? undefined : rawSlot;
    if (length === SEE_BLOCK) return { seq, type, uid, slot, record: undefined, seeBlock: true };
    if (RECORD_HEADER + length > n) return undefined;
    if (type === JOURNAL_DROPPED)
      return {
        seq,
        type,
        uid,
        slot,
        record: undefined,
        seeBlock: false,
        reason: DROP_REASON_CODES[bytes.readUInt8(at + 9)],
      };
    // From Node's buffer pool, as a block's record read is: no memory of
    // its own to set up for each, and every byte is written here.
    const record = Buffer.allocUnsafe(4 + length);
    record.writeUInt32LE(length, 0);
    bytes.copy(record, 4, at + RECORD_HEADER, at + RECORD_HEADER + length);
    return { seq, type, uid, slot, record, seeBlock: false };
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
