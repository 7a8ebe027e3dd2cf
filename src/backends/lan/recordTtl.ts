import type { Answer } from 'dns-packet';

/**
 * The TTL of a DNS record as dns-packet decodes it (1 when it has none, so a
 * record without a TTL never reads as a goodbye).
 * @internal
 * @param record A decoded record.
 * @returns Its TTL in seconds; 0 is a goodbye (RFC 6762 §10.1).
 */
export function recordTtl(record: Answer): number {
  return 'ttl' in record && typeof record.ttl === 'number' ? record.ttl : 1;
}
