/**
 * The 16 raw bytes of a UUID, as wool stores them in a slot.
 *
 * @param uid A hyphenated UUID.
 * @returns 16 bytes.
 * @internal
 */
export function uidBytes(uid: string): Buffer {
  return Buffer.from(uid.replaceAll('-', ''), 'hex');
}
