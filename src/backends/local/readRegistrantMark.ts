import { REGISTRANT_MAGIC, REGISTRANT_MARK_SIZE } from './layout.js';

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
