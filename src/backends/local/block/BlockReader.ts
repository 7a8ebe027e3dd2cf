import { closeSync, constants } from 'node:fs';
import { STAT_NLINK, statIds } from '../addon/statIds.js';
import { preadSync } from '../addon/preadSync.js';
import { blockPath, LENGTH_PREFIX, MAX_READ_BLOCK, readRegistrantMark } from './blockFile.js';
import { openSafe, type SafeFile } from '../safe-fs/safeFs.js';
import { UnsafeObjectError } from '../safe-fs/UnsafeObjectError.js';
import { recordDigest, type RecordDigest } from './recordDigest.js';

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

/** One uid's block as a {@link BlockReader} knows it (only the reader changes it). @internal */
export interface BlockHandle {
  readonly uid: string;
  /** Kept open by the reader's descriptor cache. */
  fd: number | undefined;
  /** The block's size, learnt from its first read; 0 until then. */
  size: number;
}

/**
 * What one {@link BlockReader.read} found: the block's record (length
 * prefix included; a view of the scratch buffer the process's readers
 * share, good until the next read, to be copied if kept) and the pid of
 * its registrant mark (0: none), or why
 * there is no record — `'too-large'`: larger than the reader's limit, not
 * read; `'unsafe'`: a symbolic link, another user's file, or writable by
 * others, not read; `'bad-length'`: a length prefix beyond the bytes read.
 * @internal
 */
export type BlockRead =
  | { readonly kind: 'record'; readonly record: Buffer; readonly registrant: number }
  | { readonly kind: 'missing' | 'empty' | 'torn' }
  | { readonly kind: 'bad-length'; readonly prefix: Buffer; readonly claimed: number; readonly length: number }
  | { readonly kind: 'too-large'; readonly size: number }
  | { readonly kind: 'unsafe'; readonly error: UnsafeObjectError };

const MISSING: BlockRead = { kind: 'missing' };
const EMPTY: BlockRead = { kind: 'empty' };
const TORN: BlockRead = { kind: 'torn' };

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
  /** Scratch words of {@link recordDigest}. */
  readonly #digest = new Int32Array(4);

  /**
   * @param shmDir Where the blocks are (`/dev/shm`).
   * @param maxOpen How many descriptors to keep open.
   * @param maxBlock Largest block read, in bytes (below 2^31): a larger one is `'too-large'`.
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
   * A new handle on `uid`'s block (nothing opened or read yet).
   * @returns The handle.
   */
  static handle(uid: string): BlockHandle {
    return { uid, fd: undefined, size: 0 };
  }

  /**
   * The path of a block, computed each time it is needed: a block is opened
   * once and its descriptor kept, so keeping every path (a hashed name, a
   * string per worker for as long as it is known) would cost memory for
   * nothing.
   * @returns The path of its block.
   */
  path(block: BlockHandle): string {
    return blockPath(this.#shmDir, block.uid);
  }

  /**
   * Whether the block still holds the record last taken (its length and
   * digest, see {@link RecordDigest}): one read, no copy. A
   * block unlinked and re-created under the same name (wool: a drop and a
   * re-add) is a new file: its descriptor is closed so the next read
   * re-opens it by name. A block never opened yet whose bytes are known
   * already (from a journal record) is opened here and compared the same
   * way: bytes equal to a stable record are not a torn read, so one read
   * does, not the two (and a copy) of {@link BlockReader.read}.
   * @param taken The record last taken from it, if any.
   * @returns `true` when unchanged.
   */
  unchanged(block: BlockHandle, taken: RecordDigest | undefined): boolean {
    if (block.fd !== undefined && statIds(block.fd)?.[STAT_NLINK] === 0) this.close(block);
    if (taken === undefined || taken.taken === 0) return false;
    // Never opened (size unknown), and a descriptor to spare: opened now. A
    // block re-created since its last read is read whole instead (a new
    // registration: its registrant mark is read again).
    if (block.fd === undefined && (block.size !== 0 || this.#open >= this.#maxOpen || !this.#keepOpen(block))) {
      return false;
    }
    const fd = block.fd;
    if (fd === undefined) return false;
    this.#grow(taken.taken);
    const n = preadSync(fd, this.#a, 0, taken.taken, 0);
    if (n !== taken.taken) return false;
    const digest = this.#digest;
    recordDigest(this.#a, n, digest);
    return digest[0] === taken.digestA && digest[1] === taken.digestB;
  }

  /**
   * Opens a block never opened yet and keeps its descriptor (the caller
   * checked there is one to spare).
   * @returns Whether it is open now: `false` when it cannot be read as it
   * is (missing, unsafe, too large), which {@link BlockReader.read} reports.
   */
  #keepOpen(block: BlockHandle): boolean {
    const opened = this.#openBlock(block);
    if (typeof opened !== 'number') return false;
    block.fd = opened;
    this.#open += 1;
    return true;
  }

  /**
   * Opens a block by name, checked once, at open (never per event): no
   * symbolic link followed, no block of another user or writable by others;
   * its size, from the same fstat, bounds every read of it (`size` set).
   * @returns The descriptor, or why the block cannot be read.
   */
  #openBlock(entry: BlockHandle): number | BlockRead {
    let opened: SafeFile;
    try {
      opened = openSafe(this.path(entry), constants.O_RDONLY);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return MISSING;
      if (error instanceof UnsafeObjectError) return { kind: 'unsafe', error };
      throw error;
    }
    if (opened.size > this.#maxBlock) {
      closeSync(opened.fd);
      return { kind: 'too-large', size: opened.size };
    }
    // Kept as a small integer (it is at most maxBlock, far below 2^31): the
    // stat figures come as doubles, and a double stored in the entry would
    // be a boxed number in every entry.
    entry.size = opened.size | 0;
    return opened.fd;
  }

  /**
   * Reads a block's record twice and returns it only if both reads agree.
   * @returns The record (length prefix included; a view, good until the next read), or why there is none.
   */
  read(entry: BlockHandle): BlockRead {
    let fd = entry.fd;
    let transient = false;
    if (fd === undefined) {
      const opened = this.#openBlock(entry);
      if (typeof opened !== 'number') return opened;
      fd = opened;
      if (this.#open < this.#maxOpen) {
        entry.fd = fd;
        this.#open += 1;
      } else {
        transient = true;
      }
    }
    try {
      this.#grow(entry.size);
      const first = preadSync(fd, this.#a, 0, entry.size, 0);
      if (first < LENGTH_PREFIX) return EMPTY;
      const length = this.#a.readUInt32LE(0);
      if (length === 0) return EMPTY;
      const end = LENGTH_PREFIX + length;
      if (end > first) {
        return {
          kind: 'bad-length',
          prefix: Buffer.from(this.#a.subarray(0, LENGTH_PREFIX)),
          claimed: length,
          length: first,
        };
      }
      const second = preadSync(fd, this.#b, 0, end, 0);
      if (second !== end || this.#a.compare(this.#b, 0, end, 0, end) !== 0) return TORN;
      return {
        kind: 'record',
        record: this.#a.subarray(0, end),
        registrant: readRegistrantMark(this.#a, end, first),
      };
    } finally {
      if (transient) closeSync(fd);
    }
  }

  /**
   * Closes a handle's descriptor, if open.
   */
  close(entry: BlockHandle): void {
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
