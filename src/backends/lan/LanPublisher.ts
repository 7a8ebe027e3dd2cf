import type { Subject } from 'rxjs';
import { PublisherBase } from '../../discovery/PublisherBase.js';
import type { DiscoveryDiagnostic } from '../../discovery/types.js';
import { WorkerNotFoundError } from '../../errors/WorkerNotFoundError.js';
import type { DiscoveryEventType } from '../../events/types.js';
import type { WorkerInfo } from '../../model/types.js';
import { AdvertisePolicy } from './AdvertisePolicy.js';
import { encodeTxt } from '../../codec/encodeTxt.js';
import { encodeTxtEntries } from './encodeTxtEntries.js';
import { RESIGN_AFTER_MS, signatureEntry, type LanKey, type SignedFields } from './lanSigning.js';
import { MdnsResponder } from './MdnsResponder.js';
import type { AdvertiseHost } from './types.js';
import type { WorkerAdvert } from './workerRecords.js';

/** Settings of a {@link LanPublisher}, resolved by {@link lanDiscovery}. @internal */
export interface LanPublisherConfig {
  readonly serviceType: string;
  readonly advertiseHost: AdvertiseHost | undefined;
  readonly probe: boolean;
  readonly interface: string | undefined;
  readonly port: number | undefined;
  readonly unknownUpdate: 'register' | 'reject';
  /** With keys: every record carries a signature entry made with the first. */
  readonly keys?: readonly LanKey[] | undefined;
}

/**
 * The {@link WorkerPublisher} of {@link lanDiscovery}: the mDNS responder of
 * the workers it registers ({@link MdnsResponder}), announcing each at the
 * address its {@link AdvertisePolicy} picks. `worker-added` probes
 * (optionally) then announces; an update re-announces in place (peers see
 * one `worker-updated`); `worker-dropped` and `close()` send goodbyes.
 *
 * Ownership on LAN: a publisher answers only for the workers it registered,
 * so it can update or drop only those: `worker-updated` of any other uid
 * rejects with {@link WorkerNotFoundError} (unless `unknownUpdate:
 * 'register'`), `worker-dropped` of one is a no-op.
 * @internal Created by {@link lanDiscovery}.
 */
export class LanPublisher extends PublisherBase {
  readonly #serviceType: string;
  readonly #unknownUpdate: 'register' | 'reject';
  readonly #diagnostics: Subject<DiscoveryDiagnostic>;
  readonly #warned = new Set<string>();
  readonly #policy: AdvertisePolicy;
  readonly #responder: MdnsResponder;
  /**
   * When each applied change is on the wire, in apply order: every `apply`
   * that succeeds pushes one, and its `publish` takes the oldest (applies run
   * in call order and each one's publish settles before the next starts).
   */
  readonly #onWire: Promise<void>[] = [];
  readonly #namespace: string;
  /** The signing key, when records are signed. */
  readonly #key: LanKey | undefined;
  /** What each signed worker's signature covers (unsigned TXT entries and fields), by uid. */
  readonly #signed = new Map<string, { readonly entries: Buffer[]; readonly fields: SignedFields }>();
  /** The last signing time per uid, ever (kept after a drop: a re-added worker must not look older). */
  readonly #lastSigned = new Map<string, number>();

  /**
   * @param config Resolved options.
   * @param diagnostics Where to report warnings.
   */
  constructor(namespace: string, config: LanPublisherConfig, diagnostics: Subject<DiscoveryDiagnostic>) {
    super(namespace);
    this.#serviceType = config.serviceType.replace(/\.$/, '').toLowerCase();
    this.#unknownUpdate = config.unknownUpdate;
    this.#diagnostics = diagnostics;
    this.#namespace = namespace;
    this.#key = config.keys?.[0];
    this.#policy = new AdvertisePolicy(config.advertiseHost, (message, uid) => this.#warn(message, undefined, uid));
    this.#responder = new MdnsResponder({
      namespace,
      serviceType: this.#serviceType,
      probe: config.probe,
      interface: config.interface,
      port: config.port,
      warn: (message, error) => this.#warn(message, error),
      refresh: this.#key === undefined ? undefined : (advert) => this.#resign(advert),
    });
  }

  /** A signing time for a worker: now, or 1 ms past its last one (strictly increasing, whatever the clock did). */
  #nextTime(uid: string): number {
    const time = Math.max(Date.now(), (this.#lastSigned.get(uid) ?? 0) + 1);
    this.#lastSigned.set(uid, time);
    return time;
  }

  /** The TXT entries of a worker with a fresh signature entry. */
  #sign(key: LanKey, uid: string, entries: Buffer[], fields: Omit<SignedFields, 'time'>): Buffer[] {
    const signed: SignedFields = { ...fields, time: this.#nextTime(uid) };
    this.#signed.set(uid, { entries, fields: signed });
    return [...entries, signatureEntry(key, signed)];
  }

  /**
   * Before an answer: a new advert with a fresh signature when the current one is older than
   * {@link RESIGN_AFTER_MS}.
   */
  #resign(advert: WorkerAdvert): WorkerAdvert | undefined {
    const signed = this.#signed.get(advert.uid);
    if (this.#key === undefined || signed === undefined || Date.now() - signed.fields.time < RESIGN_AFTER_MS)
      return undefined;
    return { ...advert, txt: this.#sign(this.#key, advert.uid, signed.entries, signed.fields) };
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
   * @throws {WorkerNotFoundError} (as a rejection) On `worker-updated` of a uid this publisher has not registered
   * (default `unknownUpdate: 'reject'`).
   * @throws {PublisherClosedError} (as a rejection) After `close()`.
   */
  override publish(type: DiscoveryEventType, worker: WorkerInfo): Promise<void> {
    // Fast path: probing takes ~0.75 s, so the queue holds a change only until it is registered and the caller
    // waits for the wire, letting adds probe in parallel.
    return super.publish(type, worker).then(() => this.#onWire.shift());
  }

  /**
   * Registers, re-announces or withdraws one worker.
   * @param type What happened.
   * @param worker The checked worker.
   */
  protected async apply(type: DiscoveryEventType, worker: WorkerInfo): Promise<void> {
    const failure = this.#responder.failure;
    if (failure !== undefined) throw failure;
    if (type === 'worker-dropped') {
      this.#signed.delete(worker.uid);
      this.#onWire.push(this.#responder.withdraw(worker.uid));
      return;
    }
    if (type === 'worker-updated' && this.#unknownUpdate === 'reject' && !this.#responder.has(worker.uid)) {
      throw new WorkerNotFoundError(worker.uid, this.namespace);
    }
    // Everything that can reject the worker comes before the socket opens.
    let txt = encodeTxtEntries(worker);
    const { port, ipv4, ipv6 } = await this.#policy.addressOf(worker);
    const ip = ipv4[0] ?? ipv6[0];
    if (this.#key !== undefined && ip !== undefined) {
      // Signed for the address subscribers decode: the first IPv4, else the first IPv6.
      const address = ip.includes(':') ? `[${ip}]:${port}` : `${ip}:${port}`;
      txt = this.#sign(this.#key, worker.uid, txt, {
        namespace: this.#namespace,
        uid: worker.uid,
        address,
        txt: encodeTxt(worker),
      });
    }
    const { onWire } = await this.#responder.register({
      serviceType: this.#serviceType,
      uid: worker.uid,
      port,
      ipv4,
      ipv6,
      txt,
    });
    this.#onWire.push(onWire);
  }

  /** Sends goodbyes for the workers this publisher registered, then closes its socket. */
  protected shutdown(): Promise<void> {
    return this.#responder.close();
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
}
