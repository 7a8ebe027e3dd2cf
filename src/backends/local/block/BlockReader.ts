import { closeSync, constants, fstatSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { blockName } from './blockFile.js';
import { LENGTH_PREFIX, MAX_READ_BLOCK } from './blockFile.js';
import { openSafe } from '../safe-fs/safeFs.js';
import { readRegistrantMark } from './blockFile.js';
import { UnsafeObjectError } from '../safe-fs/UnsafeObjectError.js';

/** Scratch buffers kept between reads; a larger (still bounded) block is read into buffers not kept. */
const SCRATCH = 64 * 1024;

/**
 * The two scratch buffers, one pair for every reader of the process (reads
 * are synchronous, and what is returned is a copy): a subscription costs no
 * scratch memory of its own, so subscribing and unsubscribing in a loop
 * leaves no 128 KiB per cycle for the garbage collector to find.
 */
let shared: [Buffer, Buffer] | undefined;
function sharedScratch(): [Buffer, Buffer] {
  shared ??= [Buffer.alloc(SCRATCH), Buffer.alloc(SCRATCH)];
  return shared;
}

/** Block descriptors one subscription keeps open by default; beyond, blocks are opened per read. */
export const MAX_OPEN_BLOCKS = 4096;

/** What a subscriber knows about one uid's block. @internal */
export interface BlockEntry {
  readonly uid: string;
  /** The block's path, computed on first use (a SHA-256: not needed to replay a journal record). */
  path: string | undefined;
  /** Kept open by the {@link BlockReader}'s descriptor cache. */
  fd: number | undefined;
  /** The block's size, learnt from its first read; 0 until then. */
  size: number;
  /** Last stable record bytes taken (length prefix included). */
  bytes: Buffer | undefined;
  /** Whether `bytes` decoded to a valid worker of this uid. */
  ok: boolean;
  /** Bytes last reported as malformed, not to report them twice. */
  reported: Buffer | undefined;
  /** The block was last found missing or empty (reported if it still is at the next read). */
  strike: Buffer | undefined;
  /**
   * The pid the worker's liveness follows, from its block's registrant
   * mark: > 0 that pid, 0 none (its record's pid), -1 not known (the record
   * came from the journal and its pid changed: the block is read when needed).
   */
  registrant: number;
}

/**
 * A block's record (length prefix included), or why there is none:
 * `'too-large'` (the block is larger than the reader's limit: not read),
 * `'unsafe'` (a symbolic link, another user's file, or writable by others:
 * not read; see {@link BlockReader.lastError}).
 * @internal
 */
export type BlockRead = Buffer | 'missing' | 'empty' | 'torn' | 'bad-length' | 'too-large' | 'unsafe';

/**
 * Reads worker blocks for one subscriber, without any lock: each record is
 * read twice and taken only when both reads agree (a torn read of a block
 * being rewritten is reported as `'torn'`, to be retried). Keeps up to
 * `maxOpen` block descriptors open (beyond, blocks are opened per read) and
 * two scratch buffers (shared by the process's readers), so that reading an unchanged block costs one read and
 * allocates nothing.
 * @internal
 */
export class BlockReader {
  readonly #shmDir: string;
  readonly #maxOpen: number;
  readonly #maxBlock: number;
  #open = 0;
  #a: Buffer = sharedScratch()[0];
  #b: Buffer = sharedScratch()[1];
  /** Why the last `'unsafe'` read was refused. */
  lastError: UnsafeObjectError | undefined;
  /** How many bytes the last {@link BlockReader.read} found in the block (less than its size once truncated). */
  lastLength = 0;
  /** The pid of the registrant mark the last record {@link BlockReader.read} returned came with, or 0 (none). */
  lastRegistrant = 0;

  /**
   * @param shmDir Where the blocks are (`/dev/shm`).
   * @param maxOpen How many descriptors to keep open.
   * @param maxBlock Largest block read, in bytes: a larger one is `'too-large'`.
   */
  constructor(shmDir: string, maxOpen = MAX_OPEN_BLOCKS, maxBlock = MAX_READ_BLOCK) {
    this.#shmDir = shmDir;
    this.#maxOpen = maxOpen;
    this.#maxBlock = maxBlock;
  }

  /** Largest block read, in bytes. */
  get maxBlock(): number {
    return this.#maxBlock;
  }

  /** How many block descriptors are open. */
  get openCount(): number {
    return this.#open;
  }

  /**
   * A new entry for `uid` (nothing read yet).
   * @param uid The worker's uid.
   * @returns The entry.
   */
  static entry(uid: string): BlockEntry {
    return { uid, path: undefined, fd: undefined, size: 0, bytes: undefined, ok: false, reported: undefined, strike: undefined, registrant: -1 };
  }

  /**
   * @param entry An entry.
   * @returns The path of its block.
   */
  path(entry: BlockEntry): string {
    entry.path ??= join(this.#shmDir, blockName(entry.uid));
    return entry.path;
  }

  /**
   * The first bytes of the last read (after a `'bad-length'`: the length
   * prefix); valid until the process's next block read.
   * @param length How many bytes.
   * @returns A copy.
   */
  lastRead(length: number): Buffer {
    return Buffer.from(this.#a.subarray(0, length));
  }

  /**
   * Whether the block still holds exactly the bytes last taken: one read. A
   * block unlinked and re-created under the same name (wool: a drop and a
   * re-add) is a new file: its descriptor is closed so the next read
   * re-opens it by name.
   * @param entry An entry.
   * @returns `true` when unchanged.
   */
  unchanged(entry: BlockEntry): boolean {
    if (entry.fd !== undefined && fstatSync(entry.fd).nlink === 0) this.close(entry);
    const bytes = entry.bytes;
    if (entry.fd === undefined || !entry.ok || bytes === undefined) return false;
    this.#grow(bytes.length);
    const n = readSync(entry.fd, this.#a, 0, bytes.length, 0);
    return n === bytes.length && this.#a.compare(bytes, 0, n, 0, n) === 0;
  }

  /**
   * Reads a block's record twice and returns it only if both reads agree.
   * @param entry An entry.
   * @returns The record (a fresh buffer, length prefix included), or why there is none.
   */
  read(entry: BlockEntry): BlockRead {
    let fd = entry.fd;
    let transient = false;
    if (fd === undefined) {
      // Checked once, at open (never per event): no symbolic link followed,
      // no block of another user or writable by others; its size, from the
      // same fstat, bounds every read of it.
      let size: number;
      try {
        const opened = openSafe(this.path(entry), constants.O_RDONLY);
        fd = opened.fd;
        size = opened.stats.size;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'missing';
        if (error instanceof UnsafeObjectError) {
          this.lastError = error;
          return 'unsafe';
        }
        throw error;
      }
      entry.size = size;
      if (size > this.#maxBlock) {
        closeSync(fd);
        return 'too-large';
      }
      if (this.#open < this.#maxOpen) {
        entry.fd = fd;
        this.#open += 1;
      } else {
        transient = true;
      }
    }
    try {
      this.#grow(entry.size);
      const first = readSync(fd, this.#a, 0, entry.size, 0);
      this.lastLength = first;
      if (first < LENGTH_PREFIX) return 'empty';
      const length = this.#a.readUInt32LE(0);
      if (length === 0) return 'empty';
      const end = LENGTH_PREFIX + length;
      if (end > first) return 'bad-length';
      const second = readSync(fd, this.#b, 0, end, 0);
      if (second !== end || this.#a.compare(this.#b, 0, end, 0, end) !== 0) return 'torn';
      this.lastRegistrant = readRegistrantMark(this.#a, end, first);
      return Buffer.from(this.#a.subarray(0, end));
    } finally {
      if (transient) closeSync(fd);
    }
  }

  /**
   * Closes an entry's descriptor, if open.
   * @param entry An entry.
   */
  close(entry: BlockEntry): void {
    if (entry.fd === undefined) return;
    try {
      closeSync(entry.fd);
    } catch {
      // Already closed.
    }
    entry.fd = undefined;
    this.#open -= 1;
  }

  /**
   * Scratch buffers of at least `size` bytes (bounded by the limit, as
   * every size given here is): the kept 64 KiB ones, or for a larger block
   * buffers used for this read only, so that memory goes back afterwards.
   */
  #grow(size: number): void {
    if (size <= SCRATCH) {
      [this.#a, this.#b] = sharedScratch();
    } else if (this.#a.length < size || this.#a.length > 2 * size) {
      this.#a = Buffer.allocUnsafe(size);
      this.#b = Buffer.allocUnsafe(size);
    }
  }
}
