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
