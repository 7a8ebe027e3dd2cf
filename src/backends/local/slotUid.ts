/** The ASCII codes of the two lowercase hex digits of each byte value, at 2 × byte. @internal */
export const HEX = new Uint8Array(512);
for (let byte = 0; byte < 256; byte += 1) {
  const digits = byte.toString(16).padStart(2, '0');
  HEX[2 * byte] = digits.charCodeAt(0);
  HEX[2 * byte + 1] = digits.charCodeAt(1);
}
/** Where each of the 16 bytes' two digits go in `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`. @internal */
export const POSITION = [0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34];
/** The UUID's character codes, hyphens in place; rewritten by each call. */
const CODES: number[] = new Array<number>(36).fill(0x2d);

/**
 * The hyphenated lowercase UUID held by 16 slot bytes.
 *
 * It runs once per journal record and per changed slot, on every
 * subscriber's hot path, so it is built from a byte → digits table as one
 * string rather than from `toString('hex')` and five slices.
 * @param table A buffer holding slots.
 * @param offset Byte offset of the slot.
 * @returns The UUID.
 * @internal
 */
export function slotUid(table: Uint8Array, offset: number): string {
  for (let i = 0; i < 16; i += 1) {
    const byte = table[offset + i] ?? 0;
    const at = POSITION[i] ?? 0;
    CODES[at] = HEX[2 * byte] ?? 0;
    CODES[at + 1] = HEX[2 * byte + 1] ?? 0;
  }
  return String.fromCharCode.apply(null, CODES);
}
