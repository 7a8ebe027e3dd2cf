import { shortHash } from '../names/shortHash.js';

import { closeSync, constants, openSync, unlinkSync } from 'node:fs';
import { STAT_INO, statIds } from '../addon/statIds.js';
import { pwriteSync } from '../addon/pwriteSync.js';
import { BlockExhaustedError } from './BlockExhaustedError.js';
import { openSafeIfExists } from '../safe-fs/safeFs.js';

/** Byte layout of a worker block (see docs/wool-wire.md). */
/** Block prefix: u32 payload length, native order (little-endian on x86-64 and arm64). */
export const LENGTH_PREFIX = 4;
/**
 * Largest block a reader accepts by default (a process's own `blockSize`
 * raises it): sizes read from shared memory are another process's word,
 * and never size an allocation beyond this.
 */
export const MAX_READ_BLOCK = 1 << 20;
/**
 * woolrx's registrant mark: the last 16 bytes of a block a woolrx publisher
 * created, naming the pid whose liveness the worker follows (the pid its
 * registrant published): u32 LE `WRXR`, u32 LE pid, u32 LE the pid's
 * complement, 4 zero bytes. wool reads only the length-prefixed record, so
 * the mark is invisible to it; a block without one (wool's, or one whose
 * record reaches into the last 16 bytes) follows its record's pid.
 */
export const REGISTRANT_MARK_SIZE = 16;
/** `WRXR` read as a little-endian u32. */
export const REGISTRANT_MAGIC = 0x52585257;

const HYPHEN = 0x2d;
const UPPER_A = 0x41;
const UPPER_Z = 0x5a;
const LOWER_CASE = 0x20;
const UUID_DIGITS = 32;
/** The digits of the uid being named (one name at a time: hashed before the next is gathered). */
const digits = new Uint8Array(UUID_DIGITS);

/**
 * Name of a worker's block: `short_hash` of its UUID as 32 lowercase hex
 * digits, without hyphens.
 *
 * @example
 * blockName('6f1d2b1c-4c0b-4e7e-9a56-0c2b9d1d7e11'); // 'fX2taOjhEws3Xt_BVzfnipvB5cO1aB'
 *
 * @param uid A hyphenated UUID, or its 32 hex digits.
 * @returns The object name, without the leading `/`.
 * @internal
 */
export function blockName(uid: string): string {
  // The digits are gathered as bytes: a subscriber names every block it
  // opens, and building the digits as strings first was most of what a name
  // allocated. Anything but 32 ASCII digits takes the string path.
  let n = 0;
  for (let i = 0; i < uid.length; i += 1) {
    let c = uid.charCodeAt(i);
    if (c === HYPHEN) continue;
    if (n === UUID_DIGITS || c > 0x7f) return shortHash(uid.replaceAll('-', '').toLowerCase());
    if (c >= UPPER_A && c <= UPPER_Z) c += LOWER_CASE;
    digits[n] = c;
    n += 1;
  }
  return n === UUID_DIGITS ? shortHash(digits) : shortHash(uid.replaceAll('-', '').toLowerCase());
}

/**
 * The path of a worker's block. Joined by hand: `path.join` normalizes
 * character by character, and this runs for every block a subscriber
 * opens and every publish.
 * @example
 * blockPath('/dev/shm', uid); // '/dev/shm/fX2taOjhEws3Xt_BVzfnipvB5cO1aB'
 * @param shmDir The directory of the shared-memory objects, without a trailing `/`.
 * @param uid A hyphenated UUID, or its 32 hex digits.
 * @returns The path.
 * @internal
 */
export function blockPath(shmDir: string, uid: string): string {
  return `${shmDir}/${blockName(uid)}`;
}

/**
 * The pid a block's registrant mark names (see {@link REGISTRANT_MARK_SIZE}),
 * or 0 when the block has none: too small, a record reaching into its last
 * 16 bytes, or bytes that are not a whole mark.
 * @param block The block's bytes, from offset 0.
 * @param recordEnd Where its record ends (length prefix included).
 * @param size How many bytes of `block` hold the block (its size).
 * @returns The marked pid (> 0), or 0.
 * @internal
 */
export function readRegistrantMark(block: Buffer, recordEnd: number, size: number): number {
  const at = size - REGISTRANT_MARK_SIZE;
  if (at < recordEnd || size > block.length) return 0;
  if (block.readUInt32LE(at) !== REGISTRANT_MAGIC || block.readUInt32LE(at + 12) !== 0) return 0;
  const pid = block.readUInt32LE(at + 4);
  return pid > 0 && pid <= 0x7fffffff && (pid ^ block.readUInt32LE(at + 8)) >>> 0 === 0xffffffff ? pid : 0;
}

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
  return file === undefined ? undefined : { fd: file.fd, size: file.size, ino: file.ino };
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
      pwriteSync(fd, block, 0, blockSize, 0);
      return statIds(fd)?.[STAT_INO] ?? 0;
    }
    const record = scratch(need);
    record.writeUInt32LE(payload.length, 0);
    record.set(payload, LENGTH_PREFIX);
    pwriteSync(existing.fd, record, 0, need, 0);
    if (mark?.ino !== undefined && mark.ino === existing.ino && need + REGISTRANT_MARK_SIZE <= existing.size) {
      const tail = scratch(REGISTRANT_MARK_SIZE);
      putMark(tail, REGISTRANT_MARK_SIZE, mark.pid);
      pwriteSync(existing.fd, tail, 0, REGISTRANT_MARK_SIZE, existing.size - REGISTRANT_MARK_SIZE);
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
