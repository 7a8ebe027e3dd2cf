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

/**
 * What a responder answers to one query: for the service type's PTR, every
 * announced worker's records; for the service enumeration, the service type;
 * for an instance name, the records asked for (with the addresses when the
 * SRV is among them); for a host name, its A/AAAA records. Each record once.
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
  for (const question of query.questions ?? []) {
    const name = question.name.toLowerCase();
    // dns-packet decodes the ANY (255) question type as 'ANY'.
    const type = question.type as string;
    const any = type === 'ANY';
    if (name === zone.serviceType && (type === 'PTR' || any)) {
      for (const worker of zone.announced()) take(worker.records);
    } else if (name === SERVICES && (type === 'PTR' || any)) {
      for (const _worker of zone.announced()) {
        take([{ name: SERVICES, type: 'PTR', ttl: 4500, data: zone.serviceType }]);
        break;
      }
    } else {
      const worker = zone.lookup(name);
      if (worker === undefined) continue;
      if (name === worker.instance) {
        const wanted = worker.records.filter((record) => record.name === worker.instance && record.type !== 'PTR' && (any || record.type === type));
        if (wanted.length === 0) continue;
        take(wanted.some((record) => record.type === 'SRV') ? [...wanted, ...worker.records.filter(isAddress)] : wanted);
      } else {
        take(worker.records.filter((record) => isAddress(record) && (any || record.type === type)));
      }
    }
  }
  return bundles;
}
