import type { Answer } from 'dns-packet';
import { recordTtl } from './recordTtl.js';

/** What a browse knows of one service instance (`<uid>.<service type>`). @internal */
export interface CachedInstance {
  /** A live PTR from the service type points at it: without one it is never a worker. */
  ptr: boolean;
  srv: { readonly port: number; readonly target: string } | undefined;
  txt: unknown;
  /** The malformed record last reported, so a re-announcement does not repeat the report. */
  reported: string | undefined;
  /** When a response last named it, ms. */
  lastSeen: number;
}

/** What one response changed, as {@link ServiceCache.apply} returns it. @internal */
export interface CacheChanges {
  /** Instances a response confirmed or changed (a record, or an address of their target): to evaluate again. */
  readonly touched: ReadonlySet<string>;
  /** Instances that said goodbye (their PTR, or a record of a worker): to drop. */
  readonly goodbyes: ReadonlySet<string>;
}

/** A missing SRV/TXT/address is asked for at most this often per name. */
const RESOLVE_BACKOFF_MS = 250;

/**
 * The records one browse subscription has seen for one DNS-SD service
 * type: its instances (PTR, SRV, TXT) and the addresses of their targets,
 * with the mDNS rules for applying a response (a cache-flush address record
 * replaces the host's set of that type; TTL 0 is a goodbye), and the
 * back-off of the questions asked for what is missing. Keys are lower case.
 * @internal Used by {@link browseWorkers}.
 */
export class ServiceCache {
  /** The service type, lower case, without the trailing dot. */
  readonly serviceType: string;
  readonly #suffix: string;
  readonly #instances = new Map<string, CachedInstance>();
  readonly #hosts = new Map<string, { ipv4: string[]; ipv6: string[] }>();
  /** Instance or host name → when its missing records were last asked for. */
  readonly #asked = new Map<string, number>();
  /** SRV target (lower case) → the instances pointing at it. */
  readonly #byTarget = new Map<string, Set<string>>();

  /** @param serviceType The service type, with or without the trailing dot. */
  constructor(serviceType: string) {
    this.serviceType = serviceType.replace(/\.$/, '').toLowerCase();
    this.#suffix = `.${this.serviceType}`;
  }

  /**
   * @param key An instance key.
   * @returns Its label: the worker uid.
   */
  labelOf(key: string): string {
    return key.slice(0, -this.#suffix.length);
  }

  /** @returns The instances, by key. */
  instances(): IterableIterator<[string, CachedInstance]> {
    return this.#instances.entries();
  }

  /**
   * @param key An instance key.
   * @returns Its records, if any were seen and not forgotten.
   */
  get(key: string): CachedInstance | undefined {
    return this.#instances.get(key);
  }

  /**
   * The address to reach an instance's target at: IPv4 first, else IPv6.
   * @param target The SRV target.
   * @returns An IP address, or `undefined` when none is known.
   */
  addressOf(target: string): string | undefined {
    const host = this.#hosts.get(target.toLowerCase());
    return host?.ipv4[0] ?? host?.ipv6[0];
  }

  /**
   * Every address known for a target: IPv4 first, then IPv6.
   * @param target The SRV target.
   * @returns The IP addresses, in the order seen.
   */
  addressesOf(target: string): string[] {
    const host = this.#hosts.get(target.toLowerCase());
    return host === undefined ? [] : [...host.ipv4, ...host.ipv6];
  }

  /**
   * Whether to ask the network for a name's missing records now, at most
   * once per 250 ms per name; records the asking when it says yes.
   * @param name An instance key or a host name.
   * @param now The time, ms.
   * @returns `true` when the question should be sent.
   */
  mayAsk(name: string, now: number): boolean {
    const key = name.toLowerCase();
    if (now - (this.#asked.get(key) ?? -Infinity) < RESOLVE_BACKOFF_MS) return false;
    this.#asked.set(key, now);
    return true;
  }

  /**
   * Applies one response's records (answers and additionals).
   * @param now The time, ms.
   * @param isWorker Whether an instance is a worker now: an SRV/TXT goodbye of one is a goodbye of the worker; of
   * another, it just clears the record.
   * @returns What changed.
   */
  apply(records: readonly Answer[], now: number, isWorker: (key: string) => boolean): CacheChanges {
    const touched = new Set<string>();
    const goodbyes = new Set<string>();
    // Address records first: a flush replaces the host's set with this packet's.
    const flushed = new Set<string>();
    const touchedHosts = new Set<string>();
    for (const record of records) {
      if (record.type !== 'A' && record.type !== 'AAAA') continue;
      const name = record.name.toLowerCase();
      let host = this.#hosts.get(name);
      if (host === undefined) {
        host = { ipv4: [], ipv6: [] };
        this.#hosts.set(name, host);
      }
      const list = record.type === 'A' ? host.ipv4 : host.ipv6;
      const flushKey = `${name} ${record.type}`;
      const ttl = recordTtl(record);
      if (record.flush === true && !flushed.has(flushKey) && ttl > 0) {
        flushed.add(flushKey);
        list.length = 0;
      }
      const at = list.indexOf(record.data);
      if (ttl === 0) {
        if (at >= 0) list.splice(at, 1);
      } else if (at < 0) {
        list.push(record.data);
      }
      touchedHosts.add(name);
    }
    for (const record of records) {
      const ttl = recordTtl(record);
      if (record.type === 'PTR' && record.name.toLowerCase() === this.serviceType) {
        const key = record.data.toLowerCase();
        const instance = this.#instance(key, now);
        if (instance === undefined) continue;
        instance.ptr = ttl > 0;
        (ttl === 0 ? goodbyes : touched).add(key);
      } else if (record.type === 'SRV' || record.type === 'TXT') {
        const key = record.name.toLowerCase();
        const instance = this.#instance(key, now);
        if (instance === undefined) continue;
        if (ttl === 0) {
          if (record.type === 'SRV') this.#setSrv(key, instance, undefined);
          else instance.txt = undefined;
          if (isWorker(key)) goodbyes.add(key);
        } else {
          if (record.type === 'SRV')
            this.#setSrv(key, instance, { port: record.data.port, target: record.data.target });
          else instance.txt = record.data;
          touched.add(key);
        }
      }
    }
    for (const host of touchedHosts) {
      for (const key of this.#byTarget.get(host) ?? []) touched.add(key);
    }
    for (const key of goodbyes) touched.delete(key);
    return { touched, goodbyes };
  }

  /**
   * Forgets an instance.
   * @param key Its key.
   */
  delete(key: string): void {
    const instance = this.#instances.get(key);
    if (instance !== undefined) this.#setSrv(key, instance, undefined);
    this.#instances.delete(key);
    this.#asked.delete(key);
  }

  /**
   * Forgets the instances no response has named for longer than `maxAge`,
   * and the hosts no remaining instance points at.
   * @param now The time, ms.
   * @param maxAge How long an instance may go unseen, ms.
   * @returns The keys of the instances forgotten.
   */
  prune(now: number, maxAge: number): string[] {
    const forgotten: string[] = [];
    for (const [key, instance] of this.#instances) {
      if (now - instance.lastSeen > maxAge) forgotten.push(key);
    }
    for (const key of forgotten) this.delete(key);
    const targets = new Set<string>();
    for (const instance of this.#instances.values())
      if (instance.srv !== undefined) targets.add(instance.srv.target.toLowerCase());
    for (const name of this.#hosts.keys()) if (!targets.has(name)) this.#hosts.delete(name);
    for (const name of this.#asked.keys())
      if (!this.#instances.has(name) && !targets.has(name)) this.#asked.delete(name);
    return forgotten;
  }

  /** Sets an instance's SRV, keeping the index of instances by target. */
  #setSrv(key: string, instance: CachedInstance, srv: CachedInstance['srv']): void {
    const before = instance.srv?.target.toLowerCase();
    const after = srv?.target.toLowerCase();
    instance.srv = srv;
    if (before === after) return;
    if (before !== undefined) {
      const keys = this.#byTarget.get(before);
      keys?.delete(key);
      if (keys?.size === 0) this.#byTarget.delete(before);
    }
    if (after !== undefined) {
      let keys = this.#byTarget.get(after);
      if (keys === undefined) {
        keys = new Set();
        this.#byTarget.set(after, keys);
      }
      keys.add(key);
    }
  }

  /** The instance of a key in this service type (created when first named), or `undefined` for a name outside it. */
  #instance(key: string, now: number): CachedInstance | undefined {
    if (!key.endsWith(this.#suffix) || key.length === this.#suffix.length) return undefined;
    let instance = this.#instances.get(key);
    if (instance === undefined) {
      instance = { ptr: false, srv: undefined, txt: undefined, reported: undefined, lastSeen: now };
      this.#instances.set(key, instance);
    }
    return instance;
  }
}
