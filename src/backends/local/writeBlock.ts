import { closeSync, constants, fstatSync, openSync, unlinkSync, writeSync } from 'node:fs';
import { BlockExhaustedError } from './BlockExhaustedError.js';
import { LENGTH_PREFIX, REGISTRANT_MAGIC, REGISTRANT_MARK_SIZE } from './layout.js';
import { openSafeIfExists } from './openSafeIfExists.js';

/** One buffer for every block write of this process (writes are synchronous). */
let buffer = Buffer.alloc(4096);

function scratch(size: number): Buffer {
  if (buffer.length < size) buffer = Buffer.alloc(size);
  return buffer;
}

/** Puts a registrant mark naming `pid` in the last 16 bytes of `block[0, size)`. */
function putMark(block: Buffer, size: number, pid: number): void {
  const at = size - REGISTRANT_MARK_SIZE;
  block.writeUInt32LE(REGISTRANT_MAGIC, at);
  block.writeUInt32LE(pid, at + 4);
  block.writeUInt32LE(~pid >>> 0, at + 8);
  block.writeUInt32LE(0, at + 12);
}

/**
 * Whose liveness a block's worker follows (see REGISTRANT_MARK_SIZE):
 * `pid`, the pid its registrant publishes; `ino`, for a refresh, the inode
 * of the block that registrant created (the mark is rewritten only in that block).
 * @internal
 */
export interface RegistrantMark {
  readonly pid: number;
  readonly ino?: number | undefined;
}

/** An existing block, checked at open (no symbolic link, this user's, writable by nobody else), and its size. */
function openExisting(path: string): { fd: number; size: number; ino: number } | undefined {
  const file = openSafeIfExists(path, constants.O_RDWR);
  return file === undefined ? undefined : { fd: file.fd, size: file.stats.size, ino: file.stats.ino };
}

/**
 * Writes a worker's record (u32 LE length, then the protobuf bytes) at the
 * start of its block, in one positioned write.
 *
 * - `fresh` (a new registration): any leftover block of that name is
 *   replaced by a new one of `blockSize` bytes, mode 0600, written whole.
 * - otherwise (a refresh): the existing block is rewritten in place, and its
 *   actual size is the limit; a missing block is created.
 *
 * The size check comes before any write, so a record that does not fit
 * leaves the prior registration byte for byte intact.
 *
 * With `mark`, the block's last 16 bytes name the pid the worker's liveness
 * follows: always in a block created here; in a refresh only when the
 * block is still the one of inode `mark.ino` (its registrant's). A record
 * that leaves no room for the mark is written without it (the worker then
 * follows its record's pid, like a wool block): wool's sizes stay whole.
 *
 * @param path The block's path.
 * @param payload The protobuf bytes.
 * @param blockSize Size of a block this process creates.
 * @param uid The worker (for the error).
 * @param fresh Whether this is a new registration.
 * @param mark The registrant mark to write, if any.
 * @returns The inode of the block created (the caller unlinks it if the rest
 * fails, and keeps the inode as the registration's identity), or `undefined`
 * when an existing block was rewritten in place.
 * @throws {BlockExhaustedError} When the record does not fit.
 * @throws {UnsafeObjectError} When the existing block is a symbolic link, another user's, or writable by others.
 * @internal
 */
export function writeBlock(
  path: string,
  payload: Uint8Array,
  blockSize: number,
  uid: string,
  fresh: boolean,
  mark?: RegistrantMark,
): number | undefined {
  const need = LENGTH_PREFIX + payload.length;
  const existing = fresh ? undefined : openExisting(path);
  let fd = existing?.fd;
  let created = false;
  try {
    if (existing !== undefined) {
      const size = existing.size;
      if (need > size) throw new BlockExhaustedError(need, size, uid);
    } else {
      if (need > blockSize) throw new BlockExhaustedError(need, blockSize, uid);
      try {
        fd = openSync(path, constants.O_RDWR | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        // A leftover block (a crashed publisher's): replace it.
        unlinkSync(path);
        fd = openSync(path, constants.O_RDWR | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
      }
      created = true;
      // One write sizes the new block and fills it: record, then zeros.
      // (Mode 0600 comes from open(); a umask can only narrow it.)
      const block = scratch(blockSize);
      block.fill(0, need, blockSize);
      block.writeUInt32LE(payload.length, 0);
      block.set(payload, LENGTH_PREFIX);
      if (mark !== undefined && need + REGISTRANT_MARK_SIZE <= blockSize) putMark(block, blockSize, mark.pid);
      writeSync(fd, block, 0, blockSize, 0);
      return fstatSync(fd).ino;
    }
    const record = scratch(need);
    record.writeUInt32LE(payload.length, 0);
    record.set(payload, LENGTH_PREFIX);
    writeSync(existing.fd, record, 0, need, 0);
    if (mark?.ino !== undefined && mark.ino === existing.ino && need + REGISTRANT_MARK_SIZE <= existing.size) {
      const tail = scratch(REGISTRANT_MARK_SIZE);
      putMark(tail, REGISTRANT_MARK_SIZE, mark.pid);
      writeSync(existing.fd, tail, 0, REGISTRANT_MARK_SIZE, existing.size - REGISTRANT_MARK_SIZE);
    }
    return undefined;
  } catch (error) {
    if (created) {
      try {
        unlinkSync(path);
      } catch {
        // Best effort: the block never became visible through a slot.
      }
    }
    throw error;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
