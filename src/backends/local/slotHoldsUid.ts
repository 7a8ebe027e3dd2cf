import { HEX, POSITION } from './slotUid.js';

/**
 * Whether 16 slot bytes hold a given uid: {@link slotUid}'s comparison,
 * without building the string (the fallback poll checks the copy of the
 * slot table with it, slot by slot).
 *
 * @example
 * slotHoldsUid(table, 16 * slot, 'c0ffee00-0000-4000-8000-000000000001');
 * @param table A buffer holding slots.
 * @param offset Byte offset of the slot.
 * @param uid A hyphenated lowercase UUID, as {@link slotUid} renders it (its hyphens are not compared).
 * @returns `true` when the slot holds exactly that uid.
 * @internal
 */
export function slotHoldsUid(table: Uint8Array, offset: number, uid: string): boolean {
  if (uid.length !== 36) return false;
  for (let i = 0; i < 16; i += 1) {
    const byte = table[offset + i] ?? 0;
    const at = POSITION[i] ?? 0;
    if (uid.charCodeAt(at) !== HEX[2 * byte] || uid.charCodeAt(at + 1) !== HEX[2 * byte + 1]) return false;
  }
  return true;
}
