import { SLOT_SIZE } from './layout.js';

/**
 * Finds the first slot holding exactly `bytes` (16 bytes), looking only at
 * slot boundaries. Native `indexOf` does the searching.
 *
 * @param table The slots (no header).
 * @param length Bytes of `table` in use (`16 * capacity`).
 * @param bytes A UUID's 16 bytes, or 16 zeros for "first free slot".
 * @returns The slot index, or -1.
 * @internal
 */
export function findSlot(table: Buffer, length: number, bytes: Buffer): number {
  let from = 0;
  while (from < length) {
    const at = table.indexOf(bytes, from);
    if (at < 0 || at + SLOT_SIZE > length) return -1;
    const misalignment = at % SLOT_SIZE;
    if (misalignment === 0) return at / SLOT_SIZE;
    from = at + SLOT_SIZE - misalignment;
  }
  return -1;
}
