import type { Answer } from 'dns-packet';
import type { QueryPacket } from 'multicast-dns';

/** The DNS-SD service enumeration name (RFC 6763 §9). */
const SERVICES = '_services._dns-sd._udp.local';

/** One announced worker as {@link answerQuery} sees it. @internal */
export interface AnsweredWorker {
  /** `<uid>.<service type>`, lower case. */
  readonly instance: string;
  /** `<uid>.local`, lower case. */
  readonly host: string;
  /** Its records ({@link workerRecords}): PTR, SRV, TXT, A/AAAA. */
  readonly records: readonly Answer[];
}

/** What a responder holds, as {@link answerQuery} reads it. @internal */
export interface ResponderZone {
  /** The service type, lower case, without the trailing dot. */
  readonly serviceType: string;
  /** Every announced worker (workers still probing are not). */
  announced(): Iterable<AnsweredWorker>;
  /** The announced worker owning an instance or host name (lower case), if any. */
  lookup(name: string): AnsweredWorker | undefined;
}

/** A record's name, type and data, to compare a known answer with (names case-insensitively). */
function identity(record: Answer): string {
  const name = record.name.toLowerCase();
  switch (record.type) {
    case 'PTR':
      return `${name} PTR ${record.data.toLowerCase()}`;
    case 'SRV':
      return `${name} SRV ${record.data.port} ${record.data.target.toLowerCase()}`;
    case 'TXT': {
      const entries = Array.isArray(record.data) ? record.data : [record.data];
      return `${name} TXT ${entries.map((entry) => Buffer.from(entry).toString('base64')).join(' ')}`;
    }
    case 'A':
    case 'AAAA':
      return `${name} ${record.type} ${record.data}`;
    default:
      return '';
  }
}

function ttlOf(record: Answer): number {
  return (record as { ttl?: number }).ttl ?? 0;
}

/**
 * What a responder answers to one query: for the service type's PTR, every
 * announced worker's records; for the service enumeration, the service type;
 * for an instance name, the records asked for (with the addresses when the
 * SRV is among them); for a host name, its A/AAAA records. Each record once.
 * Known-answer suppression (RFC 6762 §7.1): a record the query lists as
 * known with at least half its TTL left is not sent; for the service type,
 * a worker whose PTR is known is left out whole.
 * @internal
 * @param query The query received.
 * @param zone What the responder holds.
 * @returns Bundles of records (one per worker), to pack into responses; empty when it has nothing to say.
 */
export function answerQuery(query: QueryPacket, zone: ResponderZone): Answer[][] {
  const bundles: Answer[][] = [];
  const added = new Set<Answer>();
  const take = (records: readonly Answer[]): void => {
    const fresh = records.filter((record) => !added.has(record));
    for (const record of fresh) added.add(record);
    if (fresh.length > 0) bundles.push(fresh);
  };
  const isAddress = (record: Answer): boolean => record.type === 'A' || record.type === 'AAAA';
  const known = new Map<string, number>();
  for (const record of query.answers ?? []) {
    const key = identity(record);
    if (key !== '') known.set(key, Math.max(known.get(key) ?? 0, ttlOf(record)));
  }
  const isKnown = (record: Answer): boolean => {
    if (known.size === 0) return false;
    const ttl = known.get(identity(record));
    return ttl !== undefined && ttl * 2 >= ttlOf(record);
  };
  const unknown = (records: readonly Answer[]): Answer[] => records.filter((record) => !isKnown(record));
  for (const question of query.questions ?? []) {
    const name = question.name.toLowerCase();
    // dns-packet decodes the ANY (255) question type as 'ANY'.
    const type = question.type as string;
    const any = type === 'ANY';
    if (name === zone.serviceType && (type === 'PTR' || any)) {
      for (const worker of zone.announced()) {
        if (known.size > 0 && worker.records.some((record) => record.type === 'PTR' && isKnown(record))) continue;
        take(worker.records);
      }
    } else if (name === SERVICES && (type === 'PTR' || any)) {
      for (const _worker of zone.announced()) {
        take(unknown([{ name: SERVICES, type: 'PTR', ttl: 4500, data: zone.serviceType }]));
        break;
      }
    } else {
      const worker = zone.lookup(name);
      if (worker === undefined) continue;
      if (name === worker.instance) {
        const wanted = worker.records.filter(
          (record) => record.name === worker.instance && record.type !== 'PTR' && (any || record.type === type),
        );
        if (wanted.length === 0) continue;
        take(
          unknown(
            wanted.some((record) => record.type === 'SRV') ? [...wanted, ...worker.records.filter(isAddress)] : wanted,
          ),
        );
      } else {
        take(unknown(worker.records.filter((record) => isAddress(record) && (any || record.type === type))));
      }
    }
  }
  return bundles;
}
