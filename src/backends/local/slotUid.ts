/**
 * The hyphenated lowercase UUID held by 16 slot bytes.
 *
 * @param table A buffer holding slots.
 * @param offset Byte offset of the slot.
 * @returns The UUID.
 * @internal
 */
export function slotUid(table: Buffer, offset: number): string {
  const hex = table.toString('hex', offset, offset + 16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
