import { setTimeout as sleep } from 'node:timers/promises';
import type { Answer } from 'dns-packet';
import type { QueryPacket, ResponsePacket } from 'multicast-dns';
import { errorMessage, toError } from '../../discovery/errorMessage.js';
import { answerQuery, type AnsweredWorker } from './answerQuery.js';
import { encodeResponses } from './encodeResponses.js';
import { LanNameConflictError } from './LanNameConflictError.js';
import type { LanSocketError } from './LanSocketError.js';
import { openMdns, type MdnsSocket } from './openMdns.js';
import { probeName } from './probeName.js';
import { recordTtl } from './recordTtl.js';
import { workerRecords, type WorkerAdvert } from './workerRecords.js';

/** The second announcement, 1 s after the first (RFC 6762 §8.3). */
const REANNOUNCE_MS = 1000;
/**
 * Packets of one send sent back to back; then {@link PACE} per millisecond, so slower receivers' socket buffers
 * keep up.
 */
const BURST = 32;
const PACE = 2;

/** Settings of an {@link MdnsResponder}. @internal */
export interface MdnsResponderConfig {
  readonly namespace: string;
  /** The service type, lower case, without the trailing dot. */
  readonly serviceType: string;
  /** Probe a name before announcing it. */
  readonly probe: boolean;
  readonly interface: string | undefined;
  readonly port: number | undefined;
  /** Where a problem that fails no call goes (a response not sent, the socket failing). */
  readonly warn: (message: string, error: unknown) => void;
  /**
   * Called for each announced worker before a query is answered: a new
   * advert replaces its records for this and later answers (not announced:
   * peers get it as they ask), `undefined` keeps them. Signed records use it
   * to answer with a fresh signature.
   */
  readonly refresh?: ((advert: WorkerAdvert) => WorkerAdvert | undefined) | undefined;
}

/** One worker the responder answers for. */
interface Registration extends AnsweredWorker {
  readonly uid: string;
  advert: WorkerAdvert;
  records: Answer[];
  signature: string;
  announced: boolean;
  cancelProbe: (() => void) | undefined;
  repeat: ReturnType<typeof setTimeout> | undefined;
  readonly whenAnnounced: Promise<void>;
  settle: (error?: Error) => void;
}

/** A comparable form of a record set (Buffers as base64). */
function signatureOf(records: readonly Answer[]): string {
  return JSON.stringify(records, (_key, value: unknown) =>
    value !== null && typeof value === 'object' && (value as { type?: unknown }).type === 'Buffer'
      ? Buffer.from((value as { data: number[] }).data).toString('base64')
      : value,
  );
}

/**
 * A small mDNS responder (on multicast-dns) for the workers of one LAN
 * publisher: it probes a new name (optionally), announces its records twice
 * (at once and 1 s later), re-announces changed records with the cache-flush
 * bit (peers replace them in place: no goodbye, so no drop/add pair), sends
 * goodbyes (TTL 0) on withdraw and close, and answers queries for the
 * service type, the instance and host names and the service enumeration.
 * Responses are encoded with name compression into packets of at most
 * 1440 bytes, each holding whole workers (a peer needs no follow-up query
 * for a worker it got a packet of); the first 32 packets of a send go at
 * once, the rest 2 per millisecond. Records the query lists as known are
 * left out, and so are records already queued to go out. Its socket opens
 * on the first registration.
 * @internal Used by {@link LanPublisher}; calls must not overlap (the
 * publisher's queue serialises them).
 */
export class MdnsResponder {
  readonly #config: MdnsResponderConfig;
  readonly #registrations = new Map<string, Registration>();
  /** Instance and host names → their registration. */
  readonly #byName = new Map<string, Registration>();
  /** Instance names being probed → what to do on a conflict. */
  readonly #probing = new Map<string, () => void>();
  #socket: MdnsSocket | undefined;
  /** Records in responses not sent yet: a query they answer need not send them again (they are on their way). */
  readonly #queued = new Set<Answer>();
  #failure: LanSocketError | undefined;
  #closed = false;

  /** @param config What to answer for and where to send. */
  constructor(config: MdnsResponderConfig) {
    this.#config = config;
  }

  /** The socket failure that stopped the responder, if any. */
  get failure(): LanSocketError | undefined {
    return this.#failure;
  }

  /**
   * @param uid A worker uid.
   * @returns Whether the responder answers for it (announced or being probed).
   */
  has(uid: string): boolean {
    return this.#registrations.has(uid);
  }

  /**
   * Answers for a worker from now on, or changes the records of one it
   * answers for.
   * @param advert What to announce.
   * @returns Once registered: `onWire`, which resolves when the records are
   * sent (for a new name, after probing) and rejects with a
   * {@link LanNameConflictError} or {@link LanSocketError}.
   * @throws {LanSocketError} (as a rejection) When the socket fails to open.
   */
  async register(advert: WorkerAdvert): Promise<{ readonly onWire: Promise<void> }> {
    const records = workerRecords(advert);
    const signature = signatureOf(records);
    const socket = this.#open();
    await socket.ready;
    // The socket may have failed while this awaited.
    if (this.#failure !== undefined) throw this.#failure;

    // Looked up after the await: a name conflict may have removed it meanwhile.
    const existing = this.#registrations.get(advert.uid);
    if (existing !== undefined) {
      if (signature === existing.signature)
        return { onWire: existing.announced ? Promise.resolve() : existing.whenAnnounced };
      existing.advert = advert;
      existing.records = records;
      existing.signature = signature;
      return { onWire: existing.announced ? this.#announce(existing) : existing.whenAnnounced };
    }

    let settle: (error?: Error) => void = () => undefined;
    const whenAnnounced = new Promise<void>((resolve, reject) => {
      settle = (error) => (error === undefined ? resolve() : reject(error));
    });
    // Settled by close() too, when nobody may be waiting any more.
    whenAnnounced.catch(() => undefined);
    const registration: Registration = {
      uid: advert.uid,
      instance: `${advert.uid}.${advert.serviceType}`,
      host: `${advert.uid}.local`,
      advert,
      records,
      signature,
      announced: false,
      cancelProbe: undefined,
      repeat: undefined,
      whenAnnounced,
      settle,
    };
    this.#registrations.set(registration.uid, registration);
    this.#byName.set(registration.instance, registration);
    this.#byName.set(registration.host, registration);
    if (this.#config.probe) this.#probe(socket, registration);
    else this.#announceFirst(registration);
    return { onWire: whenAnnounced };
  }

  /**
   * Stops answering for a worker and sends its goodbye. A uid it does not
   * answer for is a no-op.
   * @param uid The worker's uid.
   * @returns Resolves once the goodbye is sent.
   */
  withdraw(uid: string): Promise<void> {
    const registration = this.#registrations.get(uid);
    if (registration === undefined) return Promise.resolve();
    this.#forget(registration);
    if (!registration.announced) {
      registration.settle();
      return Promise.resolve();
    }
    return this.#send([workerRecords(registration.advert, true)]);
  }

  /**
   * Sends goodbyes for every announced worker (a worker still probing was
   * never announced: its registration just resolves), then closes the socket.
   * @returns Resolves once closed; a goodbye that cannot be sent is a warning.
   */
  async close(): Promise<void> {
    this.#closed = true;
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
        (error: unknown) => this.#config.warn(`Goodbyes not sent on close: ${errorMessage(error)}`, error),
      );
    }
    await socket.close();
  }

  /** Probes the instance name; announces when nobody answers for it, or rejects the registration on a conflict. */
  #probe(socket: MdnsSocket, registration: Registration): void {
    const stop = (): void => {
      cancel();
      if (this.#probing.get(registration.instance) === onConflict) this.#probing.delete(registration.instance);
      registration.cancelProbe = undefined;
    };
    const onConflict = (): void => {
      stop();
      this.#forget(registration);
      registration.settle(new LanNameConflictError(registration.uid, registration.instance));
    };
    const authorities = (): Answer[] =>
      registration.records.filter((record) => record.type === 'SRV' || record.type === 'TXT');
    const cancel = probeName(socket, registration.instance, authorities, {
      clear: () => {
        stop();
        this.#announceFirst(registration);
      },
      failed: (error) => {
        stop();
        registration.settle(toError(error));
      },
    });
    this.#probing.set(registration.instance, onConflict);
    registration.cancelProbe = stop;
  }

  /** While probing: a response from anyone holding a positive record of a name being probed is a conflict. */
  #onResponse(packet: ResponsePacket): void {
    if (this.#probing.size === 0) return;
    for (const record of [...(packet.answers ?? []), ...(packet.additionals ?? [])]) {
      if (recordTtl(record) === 0) continue;
      this.#probing.get(record.name.toLowerCase())?.();
    }
  }

  #announceFirst(registration: Registration): void {
    this.#announce(registration).then(
      () => registration.settle(),
      (error: unknown) => registration.settle(toError(error)),
    );
  }

  /** Sends the registration's records (first or changed announcement), and repeats them once 1 s later. */
  #announce(registration: Registration): Promise<void> {
    registration.announced = true;
    clearTimeout(registration.repeat);
    registration.repeat = setTimeout(() => {
      registration.repeat = undefined;
      if (this.#registrations.get(registration.uid) !== registration || this.#failure !== undefined) return;
      this.#send([registration.records]).catch((error: unknown) =>
        this.#config.warn(`Repeated announcement of ${registration.uid} not sent: ${errorMessage(error)}`, error),
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
    if (this.#registrations.get(registration.uid) === registration) this.#registrations.delete(registration.uid);
    if (this.#byName.get(registration.instance) === registration) this.#byName.delete(registration.instance);
    if (this.#byName.get(registration.host) === registration) this.#byName.delete(registration.host);
  }

  /** Sends bundles of records, packed into as few responses as fit, pacing long bursts. */
  async #send(bundles: readonly Answer[][]): Promise<void> {
    const socket = this.#socket;
    if (socket === undefined) return;
    const pending = bundles.filter((bundle) => bundle.length > 0);
    const responses = encodeResponses(pending);
    for (const bundle of pending) for (const record of bundle) this.#queued.add(record);
    let next = 0;
    try {
      for (const [index, { message, bundles: held }] of responses.entries()) {
        if (index >= BURST && (index - BURST) % PACE === 0) await sleep(1);
        await socket.respondEncoded(message);
        for (const bundle of pending.slice(next, next + held)) for (const record of bundle) this.#queued.delete(record);
        next += held;
      }
    } finally {
      for (const bundle of pending.slice(next)) for (const record of bundle) this.#queued.delete(record);
    }
  }

  #onQuery(query: QueryPacket): void {
    if (this.#closed || this.#failure !== undefined) return;
    const { refresh } = this.#config;
    if (refresh !== undefined) {
      for (const registration of this.#registrations.values()) {
        if (!registration.announced) continue;
        const advert = refresh(registration.advert);
        if (advert === undefined) continue;
        registration.advert = advert;
        registration.records = workerRecords(advert);
        registration.signature = signatureOf(registration.records);
      }
    }
    const bundles = answerQuery(query, {
      serviceType: this.#config.serviceType,
      announced: () => [...this.#registrations.values()].filter((registration) => registration.announced),
      lookup: (name) => {
        const registration = this.#byName.get(name);
        return registration?.announced === true ? registration : undefined;
      },
    });
    // What is already queued to go out answers this query too (RFC 6762 §6: records are not multicast twice in a row).
    const fresh =
      this.#queued.size === 0
        ? bundles
        : bundles
            .map((bundle) => bundle.filter((record) => !this.#queued.has(record)))
            .filter((bundle) => bundle.length > 0);
    if (fresh.length === 0) return;
    this.#send(fresh).catch((error: unknown) => this.#config.warn(`Response not sent: ${errorMessage(error)}`, error));
  }

  #open(): MdnsSocket {
    if (this.#socket !== undefined) return this.#socket;
    const { namespace, warn } = this.#config;
    const socket = openMdns(namespace, this.#config, {
      fatal: (error) => this.#onFatal(error),
      warning: warn,
    });
    // Socket callbacks: whatever a packet holds, nothing may escape as an uncaught exception.
    const guard = (handle: () => void): void => {
      try {
        handle();
      } catch (error) {
        warn(`Skipped an mDNS packet: ${String(error)}`, error);
      }
    };
    socket.mdns.on('query', (query: QueryPacket) => guard(() => this.#onQuery(query)));
    socket.mdns.on('response', (packet: ResponsePacket) => guard(() => this.#onResponse(packet)));
    this.#socket = socket;
    return socket;
  }

  #onFatal(error: LanSocketError): void {
    this.#failure = error;
    this.#config.warn(`LAN publisher stopped: ${error.message}`, error);
    for (const registration of this.#registrations.values()) {
      this.#stop(registration);
      if (!registration.announced) registration.settle(error);
    }
  }
}
