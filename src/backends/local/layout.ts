/**
 * Byte layout of wool's same-host discovery objects (see docs/wool-wire.md).
 * @internal
 */

/** Header: ASCII `WLD1`, u32 LE capacity, 8 zero bytes. */
export const HEADER_SIZE = 16;
/** One slot: the raw 16 bytes of a worker's UUID; all zeros is free. */
export const SLOT_SIZE = 16;
/** `WLD1` read as a little-endian u32. */
export const MAGIC = 0x31444c57;
/** Block prefix: u32 payload length, native order (little-endian on x86-64 and arm64). */
export const LENGTH_PREFIX = 4;
/** Where POSIX shared-memory objects live on Linux. */
export const SHM_DIR = '/dev/shm';
/** 16 zero bytes: a free slot. */
export const FREE_SLOT: Buffer = Buffer.alloc(SLOT_SIZE);
/**
 * Largest block a reader accepts by default (a process's own `blockSize`
 * raises it): sizes read from shared memory are another process's word,
 * and never size an allocation beyond this.
 */
export const MAX_READ_BLOCK = 1 << 20;
/** Largest segment capacity a reader accepts by default (a process's own `capacity` raises it): a 16 MiB slot table. */
export const MAX_READ_CAPACITY = 1 << 20;
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
