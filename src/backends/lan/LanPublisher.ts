import { checkPublish } from '../../discovery/checkPublish.js';
import { lookup } from 'node:dns/promises';
import { isIP, isIPv4 } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Answer, RecordType } from 'dns-packet';
import type { QueryPacket, ResponsePacket } from 'multicast-dns';
import type { Subject } from 'rxjs';
import type { DiscoveryDiagnostic, WorkerPublisher } from '../../discovery/types.js';
import type { DiscoveryEventType } from '../../events/types.js';
import { WorkerNotFoundError } from '../../errors/WorkerNotFoundError.js';
import { describeValue } from '../../model/describeValue.js';
import { parseAddress } from '../../model/parseAddress.js';
import type { WorkerInfo } from '../../model/types.js';
import { AdvertiseHostError } from './AdvertiseHostError.js';
import { defaultRouteAddress } from './defaultRouteAddress.js';
import { encodeTxtEntries } from './encodeTxtEntries.js';
import { isLoopbackHost } from './isLoopbackHost.js';
import { isWildcardHost } from './isWildcardHost.js';
import { LanNameConflictError } from './LanNameConflictError.js';
import type { LanSocketError } from './LanSocketError.js';
import { openMdns, type MdnsSocket } from './openMdns.js';
import type { AdvertiseHost } from './types.js';
import { workerRecords, type WorkerAdvert } from './workerRecords.js';

const SERVICES = '_services._dns-sd._udp.local';
/** Probes: 3 queries 250 ms apart after a random 0-250 ms wait (RFC 6762 §8.1). */
const PROBES = 3;
const PROBE_INTERVAL_MS = 250;
/** The second announcement, 1 s after the first (RFC 6762 §8.3). */
const REANNOUNCE_MS = 1000;
/** Keep each response well under the Ethernet MTU (RFC 6762 §17). */
const PACKET_BUDGET = 1200;
/** Packets sent back to back before pacing at 1 ms each. */
const BURST = 8;

/** Settings of a {@link LanPublisher}, resolved by {@link lanDiscovery}. */
export interface LanPublisherConfig {
  readonly serviceType: string;
  readonly advertiseHost: AdvertiseHost | undefined;
  readonly probe: boolean;
  readonly interface: string | undefined;
  readonly port: number | undefined;
  readonly unknownUpdate: 'register' | 'reject';
}

interface Registration {
  worker: WorkerInfo;
  advert: WorkerAdvert;
  records: Answer[];
  signature: string;
  readonly instance: string;
  readonly host: string;
  announced: boolean;
  cancelProbe: (() => void) | undefined;
  repeat: ReturnType<typeof setTimeout> | undefined;
  readonly whenAnnounced: Promise<void>;
  settle: (error?: Error) => void;
}

interface Addresses {
  readonly ipv4: string[];
  readonly ipv6: string[];
}

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

function signatureOf(records: readonly Answer[]): string {
  return JSON.stringify(records, (_key, value: unknown) =>
    value !== null && typeof value === 'object' && (value as { type?: unknown }).type === 'Buffer'
      ? Buffer.from((value as { data: number[] }).data).toString('base64')
      : value,
  );
}

function ttlOf(record: Answer): number {
  return 'ttl' in record && typeof record.ttl === 'number' ? record.ttl : 1;
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

/**
 * The {@link WorkerPublisher} of {@link lanDiscovery}: a small mDNS responder
 * (on multicast-dns) for the workers it registers. It answers queries for the
 * service type, instance names and host names; `worker-added` probes
 * (optionally) then announces twice; an update re-announces the records with
 * the cache-flush bit, so peers replace the TXT/SRV/address records in place
 * — no goodbye, so no drop/add pair; `worker-dropped` and `close()` send
 * goodbyes (TTL 0). Its socket opens on the first publish.
 * @internal Created by {@link lanDiscovery}.
 */
export class LanPublisher implements WorkerPublisher {
  readonly namespace: string;
  readonly #config: LanPublisherConfig;
  readonly #serviceType: string;
  readonly #diagnostics: Subject<DiscoveryDiagnostic>;
  readonly #registrations = new Map<string, Registration>();
  readonly #byName = new Map<string, Registration>();
  readonly #warned = new Set<string>();
  /** Instance names being probed → what to do on a conflict. */
  readonly #probing = new Map<string, () => void>();
  readonly #lookups = new Map<string, Promise<Addresses>>();
  #advertised: Promise<string> | undefined;
  #socket: MdnsSocket | undefined;
  #failure: LanSocketError | undefined;
  #chain: Promise<unknown> = Promise.resolve();
  #closed = false;
  #closing: Promise<void> | undefined;

  /**
   * @param namespace The namespace.
   * @param config Resolved options.
   * @param diagnostics Where to report warnings.
   */
  constructor(namespace: string, config: LanPublisherConfig, diagnostics: Subject<DiscoveryDiagnostic>) {
    this.namespace = namespace;
    this.#config = config;
    this.#serviceType = config.serviceType.replace(/\.$/, '').toLowerCase();
    this.#diagnostics = diagnostics;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /**
   * Publishes one change (see {@link WorkerPublisher.publish}). Resolves once
   * the change is on the wire: for a new worker, after probing, when its
   * first announcement is sent.
   * @param type What happened to the worker.
   * @param worker The worker; re-validated.
   * @returns Resolves once announced (or withdrawn).
   * @throws {TypeError} (as a rejection) On a bad type or worker, a unix address, a bad advertiseHost result.
   * @throws {TxtEntryTooLongError} (as a rejection) When a TXT entry is over 255 bytes.
   * @throws {AdvertiseHostError} (as a rejection) When a wildcard host has no default-route address.
   * @throws {LanSocketError} (as a rejection) When the mDNS socket fails.
   * @throws {LanNameConflictError} (as a rejection) When probing finds the name taken.
   * @throws {WorkerNotFoundError} (as a rejection) On `worker-updated` of an unknown uid with `unknownUpdate: 'reject'`.
   * @throws {PublisherClosedError} (as a rejection) After `close()`.
   */
  publish(type: DiscoveryEventType, worker: WorkerInfo): Promise<void> {
    let checked: WorkerInfo;
    try {
      checked = checkPublish(this.namespace, this.#closed, type, worker);
    } catch (error: unknown) {
      return Promise.reject(asError(error));
    }
    const applied = this.#chain.then(() => this.#apply(type, checked));
    this.#chain = applied.catch(() => undefined);
    return applied.then((step) => step.done);
  }

  /** Sends goodbyes for every worker this publisher registered, then closes its socket. Idempotent. */
  close(): Promise<void> {
    if (this.#closing !== undefined) return this.#closing;
    this.#closed = true;
    this.#closing = this.#chain.then(async () => {
      const announced: Registration[] = [];
      for (const registration of this.#registrations.values()) {
        this.#stop(registration);
        if (registration.announced) announced.push(registration);
        else registration.settle();
      }
      this.#registrations.clear();
      this.#byName.clear();
      const socket = this.#socket;
      if (socket === undefined) return;
      if (announced.length > 0 && this.#failure === undefined) {
        await this.#send(announced.map((registration) => workerRecords(registration.advert, true))).catch(
          (error: unknown) => this.#warn(`Goodbyes not sent on close: ${asError(error).message}`, error),
        );
      }
      await socket.close();
    });
    return this.#closing;
  }

  /** Same as {@link LanPublisher.close}, for `await using`. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  async #apply(type: DiscoveryEventType, worker: WorkerInfo): Promise<{ done: Promise<void> }> {
    if (this.#failure !== undefined) throw this.#failure;
    const existing = this.#registrations.get(worker.uid);
    if (type === 'worker-dropped') {
      if (existing === undefined) return { done: Promise.resolve() };
      this.#forget(existing);
      if (!existing.announced) {
        existing.settle();
        return { done: Promise.resolve() };
      }
      return { done: this.#send([workerRecords(existing.advert, true)]) };
    }
    if (existing === undefined && type === 'worker-updated' && this.#config.unknownUpdate === 'reject') {
      throw new WorkerNotFoundError(worker.uid, this.namespace);
    }
    return this.#register(worker);
  }

  /** Adds or refreshes a registration. */
  async #register(worker: WorkerInfo): Promise<{ done: Promise<void> }> {
    // Everything that can reject the worker comes before the socket opens.
    const txt = encodeTxtEntries(worker);
    const { ipv4, ipv6, port } = await this.#addressesOf(worker);
    const advert: WorkerAdvert = { serviceType: this.#serviceType, uid: worker.uid, port, ipv4, ipv6, txt };
    const records = workerRecords(advert);
    const signature = signatureOf(records);
    const socket = this.#open();
    await socket.ready;
    // The socket may have failed while this awaited.
    if (this.#failure !== undefined) throw this.#failure;

    // Looked up after the awaits: a name conflict may have removed it meanwhile.
    const existing = this.#registrations.get(worker.uid);
    if (existing !== undefined) {
      existing.worker = worker;
      if (signature === existing.signature) return { done: existing.announced ? Promise.resolve() : existing.whenAnnounced };
      existing.advert = advert;
      existing.records = records;
      existing.signature = signature;
      if (!existing.announced) return { done: existing.whenAnnounced };
      return { done: this.#announce(existing) };
    }

    let settle: (error?: Error) => void = () => undefined;
    const whenAnnounced = new Promise<void>((resolve, reject) => {
      settle = (error) => (error === undefined ? resolve() : reject(error));
    });
    const instance = `${worker.uid}.${this.#serviceType}`;
    const registration: Registration = {
      worker,
      advert,
      records,
      signature,
      instance,
      host: `${worker.uid}.local`,
      announced: false,
      cancelProbe: undefined,
      repeat: undefined,
      whenAnnounced,
      settle,
    };
    this.#registrations.set(worker.uid, registration);
    this.#byName.set(registration.instance, registration);
    this.#byName.set(registration.host, registration);
    if (this.#config.probe) {
      this.#probe(socket, registration);
    } else {
      this.#announce(registration).then(
        () => registration.settle(),
        (error: unknown) => registration.settle(asError(error)),
      );
    }
    return { done: whenAnnounced };
  }

  /** Probes the instance name; announces when nobody answers for it, or rejects the registration on a conflict. */
  #probe(socket: MdnsSocket, registration: Registration): void {
    let sent = 0;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const finish = (): void => {
      clearTimeout(timer);
      if (this.#probing.get(registration.instance) === onConflict) this.#probing.delete(registration.instance);
      registration.cancelProbe = undefined;
    };
    const onConflict = (): void => {
      finish();
      this.#forget(registration);
      registration.settle(new LanNameConflictError(registration.worker.uid, registration.instance));
    };
    const step = (): void => {
      if (sent === PROBES) {
        finish();
        this.#announce(registration).then(
          () => registration.settle(),
          (error: unknown) => registration.settle(asError(error)),
        );
        return;
      }
      sent++;
      socket
        .query({
          questions: [{ name: registration.instance, type: 'ANY' as RecordType }],
          authorities: registration.records.filter((record) => record.type === 'SRV' || record.type === 'TXT'),
        })
        .catch((error: unknown) => {
          finish();
          registration.settle(asError(error));
        });
      timer = setTimeout(step, PROBE_INTERVAL_MS);
    };
    this.#probing.set(registration.instance, onConflict);
    registration.cancelProbe = finish;
    timer = setTimeout(step, Math.random() * PROBE_INTERVAL_MS);
  }

  /** While probing: a response from anyone holding a positive record of a name being probed is a conflict. */
  #onResponse(packet: ResponsePacket): void {
    if (this.#probing.size === 0) return;
    for (const record of [...(packet.answers ?? []), ...(packet.additionals ?? [])]) {
      if (ttlOf(record) === 0) continue;
      this.#probing.get(record.name.toLowerCase())?.();
    }
  }

  /** Sends the registration's records (first or changed announcement), and repeats them once 1 s later. */
  #announce(registration: Registration): Promise<void> {
    registration.announced = true;
    clearTimeout(registration.repeat);
    registration.repeat = setTimeout(() => {
      registration.repeat = undefined;
      if (this.#registrations.get(registration.worker.uid) !== registration || this.#failure !== undefined) return;
      this.#send([registration.records]).catch((error: unknown) =>
        this.#warn(`Repeated announcement of ${registration.worker.uid} not sent: ${asError(error).message}`, error),
      );
    }, REANNOUNCE_MS);
    registration.repeat.unref();
    return this.#send([registration.records]);
  }

  #stop(registration: Registration): void {
    registration.cancelProbe?.();
    clearTimeout(registration.repeat);
    registration.repeat = undefined;
  }

  #forget(registration: Registration): void {
    this.#stop(registration);
    if (this.#registrations.get(registration.worker.uid) === registration) this.#registrations.delete(registration.worker.uid);
    if (this.#byName.get(registration.instance) === registration) this.#byName.delete(registration.instance);
    if (this.#byName.get(registration.host) === registration) this.#byName.delete(registration.host);
  }

  /** Sends bundles of records, packed into as few responses as fit the packet budget. */
  async #send(bundles: readonly Answer[][]): Promise<void> {
    const socket = this.#socket;
    if (socket === undefined) return;
    const packets: Answer[][] = [];
    let current: Answer[] = [];
    let size = 12;
    for (const bundle of bundles) {
      const bundleSize = bundle.reduce((sum, record) => sum + recordSize(record), 0);
      if (current.length > 0 && size + bundleSize > PACKET_BUDGET) {
        packets.push(current);
        current = [];
        size = 12;
      }
      current.push(...bundle);
      size += bundleSize;
    }
    if (current.length > 0) packets.push(current);
    for (const [index, answers] of packets.entries()) {
      // Pace long bursts so slower receivers' socket buffers keep up.
      if (index >= BURST) await sleep(1);
      await socket.respond({ answers });
    }
  }

  #onQuery(query: QueryPacket): void {
    if (this.#closed || this.#failure !== undefined) return;
    const bundles: Answer[][] = [];
    const added = new Set<Answer>();
    const take = (records: Answer[]): void => {
      const fresh = records.filter((record) => !added.has(record));
      for (const record of fresh) added.add(record);
      if (fresh.length > 0) bundles.push(fresh);
    };
    for (const question of query.questions ?? []) {
      const name = question.name.toLowerCase();
      // dns-packet decodes the ANY (255) question type as 'ANY'.
      const type = question.type as string;
      if (name === this.#serviceType && (type === 'PTR' || type === 'ANY')) {
        for (const registration of this.#registrations.values()) if (registration.announced) take(registration.records);
      } else if (name === SERVICES && (type === 'PTR' || type === 'ANY')) {
        if ([...this.#registrations.values()].some((registration) => registration.announced)) {
          take([{ name: SERVICES, type: 'PTR', ttl: 4500, data: this.#serviceType }]);
        }
      } else {
        const registration = this.#byName.get(name);
        if (registration === undefined || !registration.announced) continue;
        if (name === registration.instance) {
          const wanted = registration.records.filter(
            (record) => record.name === registration.instance && (type === 'ANY' || record.type === type) && record.type !== 'PTR',
          );
          if (wanted.length === 0) continue;
          const addresses = wanted.some((record) => record.type === 'SRV')
            ? registration.records.filter((record) => record.type === 'A' || record.type === 'AAAA')
            : [];
          take([...wanted, ...addresses]);
        } else {
          take(
            registration.records.filter(
              (record) => (record.type === 'A' || record.type === 'AAAA') && (type === 'ANY' || record.type === type),
            ),
          );
        }
      }
    }
    if (bundles.length === 0) return;
    this.#send(bundles).catch((error: unknown) => this.#warn(`Response not sent: ${asError(error).message}`, error));
  }

  #open(): MdnsSocket {
    if (this.#socket !== undefined) return this.#socket;
    const socket = openMdns(
      this.namespace,
      { interface: this.#config.interface, port: this.#config.port },
      {
        fatal: (error) => this.#onFatal(error),
        warning: (message, error) => this.#warn(message, error),
      },
    );
    // Socket callbacks: whatever a packet holds, nothing may escape as an uncaught exception.
    const guard = (handle: () => void): void => {
      try {
        handle();
      } catch (error) {
        this.#warn(`Skipped an mDNS packet: ${String(error)}`, error);
      }
    };
    socket.mdns.on('query', (query: QueryPacket) => guard(() => this.#onQuery(query)));
    socket.mdns.on('response', (packet: ResponsePacket) => guard(() => this.#onResponse(packet)));
    this.#socket = socket;
    return socket;
  }

  #onFatal(error: LanSocketError): void {
    this.#failure = error;
    this.#diagnostics.next({ kind: 'warning', namespace: this.namespace, message: `LAN publisher stopped: ${error.message}`, error });
    for (const registration of this.#registrations.values()) {
      this.#stop(registration);
      if (!registration.announced) registration.settle(error);
    }
  }

  #warn(message: string, error?: unknown, uid?: string): void {
    if (this.#warned.has(message)) return;
    this.#warned.add(message);
    this.#diagnostics.next({
      kind: 'warning',
      namespace: this.namespace,
      message,
      ...(uid === undefined ? {} : { uid }),
      ...(error === undefined ? {} : { error }),
    });
  }

  /** The port and the addresses to advertise for a worker, by the advertised-host rules. */
  async #addressesOf(worker: WorkerInfo): Promise<Addresses & { readonly port: number }> {
    const parsed = parseAddress(worker.address);
    if (parsed.kind !== 'tcp') {
      throw new TypeError(`publish: worker ${worker.uid} has address ${describeValue(worker.address)}; a unix socket cannot be advertised on the LAN`);
    }
    return { ...(await this.#hostAddresses(worker.uid, parsed.host, parsed.ipv6)), port: parsed.port };
  }

  async #hostAddresses(uid: string, host: string, ipv6: boolean): Promise<Addresses> {
    if (this.#config.advertiseHost !== undefined) return this.#resolve(await this.#advertisedHost());
    if (isWildcardHost(host)) {
      const families: (4 | 6)[] = ipv6 ? [4, 6] : [4];
      for (const family of families) {
        const address = await defaultRouteAddress(family);
        if (address !== undefined) return family === 4 ? { ipv4: [address], ipv6: [] } : { ipv4: [], ipv6: [address] };
      }
      throw new AdvertiseHostError(host, `worker ${uid} listens on a wildcard address and this host has no default route`);
    }
    if (isLoopbackHost(host)) {
      this.#warn(
        `Worker ${uid} is advertised at loopback address ${host}: only this host can reach it; pass advertiseHost (CLI: --advertise-host) for other hosts`,
        undefined,
        uid,
      );
    }
    return this.#resolve(host);
  }

  /** The advertiseHost option's value: a string as is, a function called once per publisher. */
  #advertisedHost(): Promise<string> {
    this.#advertised ??= (async () => {
      const option = this.#config.advertiseHost;
      const host = typeof option === 'function' ? await option() : option;
      if (typeof host !== 'string' || isWildcardHost(host)) {
        throw new TypeError(
          `advertiseHost returned ${describeValue(host)}: expected the address peers should use, not a wildcard`,
        );
      }
      return host;
    })();
    return this.#advertised;
  }

  /** An IP literal as itself; a host name through the resolver, once per publisher. */
  #resolve(host: string): Promise<Addresses> {
    const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
    if (isIP(bare) !== 0) return Promise.resolve(isIPv4(bare) ? { ipv4: [bare], ipv6: [] } : { ipv4: [], ipv6: [bare] });
    let pending = this.#lookups.get(bare);
    if (pending === undefined) {
      pending = lookup(bare, { all: true }).then(
        (found) => ({
          ipv4: found.filter((entry) => entry.family === 4).map((entry) => entry.address),
          ipv6: found.filter((entry) => entry.family === 6 && !entry.address.includes('%')).map((entry) => entry.address),
        }),
        (error: unknown) => {
          throw new AdvertiseHostError(bare, `it does not resolve (${asError(error).message})`, { cause: error });
        },
      );
      this.#lookups.set(bare, pending);
    }
    return pending;
  }
}
