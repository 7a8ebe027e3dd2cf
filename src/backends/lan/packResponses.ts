import type { Answer } from 'dns-packet';

/** Keep each response well under the Ethernet MTU (RFC 6762 §17). */
export const PACKET_BUDGET = 1200;
/** The DNS header. */
const HEADER = 12;

/** An upper estimate of a record's size on the wire (names uncompressed). */
function recordSize(record: Answer): number {
  const base = record.name.length + 2 + 10;
  switch (record.type) {
    case 'PTR':
      return base + record.data.length + 2;
    case 'SRV':
      return base + 6 + record.data.target.length + 2;
    case 'TXT':
      return base + (Array.isArray(record.data) ? record.data.reduce<number>((sum, entry) => sum + entry.length + 1, 0) : 256);
    case 'AAAA':
      return base + 16;
    default:
      return base + 4;
  }
}

/**
 * Packs bundles of records (one worker's records each) into as few responses
 * as fit `budget` bytes, in order, never splitting a bundle: a peer that gets
 * a packet gets every record of the workers in it. A bundle larger than the
 * budget travels alone.
 * @internal
 * @param bundles The records to send, a bundle per worker.
 * @param budget The size one response should stay under, in bytes.
 * @returns The answers of each response to send.
 */
export function packResponses(bundles: readonly (readonly Answer[])[], budget = PACKET_BUDGET): Answer[][] {
  const packets: Answer[][] = [];
  let current: Answer[] = [];
  let size = HEADER;
  for (const bundle of bundles) {
    const bundleSize = bundle.reduce((sum, record) => sum + recordSize(record), 0);
    if (current.length > 0 && size + bundleSize > budget) {
      packets.push(current);
      current = [];
      size = HEADER;
    }
    current.push(...bundle);
    size += bundleSize;
  }
  if (current.length > 0) packets.push(current);
  return packets;
}
