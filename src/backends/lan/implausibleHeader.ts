/** A DNS header: id, flags, then the four section counts (RFC 1035 §4.1.1). */
const HEADER = 12;
/** The smallest question: the root name (1 byte), type and class. */
const MIN_QUESTION = 5;
/** The smallest resource record: the root name, type, class, TTL and an empty RDATA's length. */
const MIN_RECORD = 11;

/**
 * Why a received datagram cannot be a DNS message, judged from its header
 * alone (O(1)), or `undefined` when it may be one. The decoder allocates
 * an array per section of the size the header announces before it reads a
 * record, so a small datagram announcing 65,535 records of each kind costs
 * it time and memory out of all proportion to its size (docs/backends/lan.md
 * has the figures). A header whose counts need more bytes than the datagram
 * has is refused here, before any of that.
 * @param message The datagram.
 * @returns The reason, or `undefined`.
 * @internal
 */
export function implausibleHeader(message: Uint8Array): string | undefined {
  if (message.length < HEADER) return `a ${message.length}-byte datagram is shorter than a DNS header`;
  const count = (at: number): number => ((message[at] ?? 0) << 8) | (message[at + 1] ?? 0);
  const questions = count(4);
  const records = count(6) + count(8) + count(10);
  const need = HEADER + questions * MIN_QUESTION + records * MIN_RECORD;
  if (need <= message.length) return undefined;
  return (
    `its header announces ${questions} question(s) and ${records} record(s), ` +
    `which need at least ${need} bytes, in a ${message.length}-byte datagram`
  );
}
