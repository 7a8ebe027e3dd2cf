import type { Answer } from 'dns-packet';

/** The names and data a worker is advertised with. */
export interface WorkerAdvert {
  /** The service type, without the trailing dot (`_wool-ad3e53._tcp.local`). */
  readonly serviceType: string;
  /** The worker uid: the instance label. */
  readonly uid: string;
  /** SRV port. */
  readonly port: number;
  /** Advertised IPv4 addresses (A records). */
  readonly ipv4: readonly string[];
  /** Advertised IPv6 addresses (AAAA records). */
  readonly ipv6: readonly string[];
  /** TXT character-strings. */
  readonly txt: readonly Buffer[];
}

/** TTLs of RFC 6762 §10: host-name records 120 s, the others 75 min. */
const HOST_TTL = 120;
const OTHER_TTL = 4500;

/** The instance name of a worker: `<uid>.<service type>`. */
function instanceName(serviceType: string, uid: string): string {
  return `${uid}.${serviceType}`;
}

/** The SRV target of a worker: its own host name, so workers never share address records. */
function hostName(uid: string): string {
  return `${uid}.local`;
}

/**
 * The DNS-SD records advertising one worker: PTR (service type → instance),
 * SRV (port, target), TXT, and A/AAAA for the target. The unique records
 * (SRV, TXT, A, AAAA) carry the cache-flush bit, so an announcement replaces
 * what peers hold instead of adding to it.
 *
 * @param advert What to advertise.
 * @param ttlZero Goodbye records (TTL 0) instead.
 * @returns The records: PTR first.
 */
export function workerRecords(advert: WorkerAdvert, ttlZero = false): Answer[] {
  const instance = instanceName(advert.serviceType, advert.uid);
  const host = hostName(advert.uid);
  const ttl = (normal: number): number => (ttlZero ? 0 : normal);
  const records: Answer[] = [
    { name: advert.serviceType, type: 'PTR', ttl: ttl(OTHER_TTL), data: instance },
    {
      name: instance,
      type: 'SRV',
      ttl: ttl(HOST_TTL),
      flush: true,
      data: { port: advert.port, target: host, priority: 0, weight: 0 },
    },
    { name: instance, type: 'TXT', ttl: ttl(OTHER_TTL), flush: true, data: [...advert.txt] },
  ];
  for (const address of advert.ipv4)
    records.push({ name: host, type: 'A', ttl: ttl(HOST_TTL), flush: true, data: address });
  for (const address of advert.ipv6)
    records.push({ name: host, type: 'AAAA', ttl: ttl(HOST_TTL), flush: true, data: address });
  return records;
}
