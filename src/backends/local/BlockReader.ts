import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { blockName } from './blockName.js';
import { LENGTH_PREFIX } from './layout.js';

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
}

/** A block's record (length prefix included), or why there is none. @internal */
export type BlockRead = Buffer | 'missing' | 'empty' | 'torn' | 'bad-length';

/**
 * Reads worker blocks for one subscriber, without any lock: each record is
 * read twice and taken only when both reads agree (a torn read of a block
 * being rewritten is reported as `'torn'`, to be retried). Keeps up to
 * `maxOpen` block descriptors open (beyond, blocks are opened per read) and
 * two scratch buffers, so that reading an unchanged block costs one read and
 * allocates nothing.
 * @internal
 */
export class BlockReader {
  readonly #shmDir: string;
  readonly #maxOpen: number;
  #open = 0;
  #a: Buffer = Buffer.alloc(64 * 1024);
  #b: Buffer = Buffer.alloc(64 * 1024);

  /**
   * @param shmDir Where the blocks are (`/dev/shm`).
   * @param maxOpen How many descriptors to keep open.
   */
  constructor(shmDir: string, maxOpen = MAX_OPEN_BLOCKS) {
    this.#shmDir = shmDir;
    this.#maxOpen = maxOpen;
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
    return { uid, path: undefined, fd: undefined, size: 0, bytes: undefined, ok: false, reported: undefined };
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
   * The first bytes of the last read (after a `'bad-length'`: the length prefix).
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
      try {
        fd = openSync(this.path(entry), constants.O_RDONLY);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'missing';
        throw error;
      }
      entry.size = 0; // learnt from the first read below
      if (this.#open < this.#maxOpen) {
        entry.fd = fd;
        this.#open += 1;
      } else {
        transient = true;
      }
    }
    try {
      let first: number;
      if (entry.size === 0) {
        // Size unknown (just opened): a read into the large scratch buffer
        // returns it, saving an fstat; only a larger block needs one.
        first = readSync(fd, this.#a, 0, this.#a.length, 0);
        if (first === this.#a.length) {
          const size = fstatSync(fd).size;
          if (size > first) {
            this.#grow(size);
            first = readSync(fd, this.#a, 0, size, 0);
          }
        }
        entry.size = first;
      } else {
        this.#grow(entry.size);
        first = readSync(fd, this.#a, 0, entry.size, 0);
      }
      if (first < LENGTH_PREFIX) return 'empty';
      const length = this.#a.readUInt32LE(0);
      if (length === 0) return 'empty';
      const end = LENGTH_PREFIX + length;
      if (end > first) return 'bad-length';
      const second = readSync(fd, this.#b, 0, end, 0);
      if (second !== end || this.#a.compare(this.#b, 0, end, 0, end) !== 0) return 'torn';
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

  #grow(size: number): void {
    if (this.#a.length >= size) return;
    this.#a = Buffer.alloc(size);
    this.#b = Buffer.alloc(size);
  }
}
