import type { Etcd3, IKeyValue, Lease } from 'etcd3';
import { loadEtcd3 } from './loadEtcd3.js';
import type { Subject } from 'rxjs';
import { encodeWorker } from '../../codec/encodeWorker.js';
import { errorMessage } from '../../discovery/errorMessage.js';
import { PublisherBase } from '../../discovery/PublisherBase.js';
import { retryDelay } from '../../discovery/retryDelay.js';
import type { DiscoveryDiagnostic } from '../../discovery/types.js';
import type { DiscoveryEventType } from '../../events/types.js';
import { WorkerNotFoundError } from '../../errors/WorkerNotFoundError.js';
import type { WorkerInfo } from '../../model/types.js';
import type { EtcdConnection } from './EtcdConnection.js';
import type { EtcdSettings } from './types.js';

const RETRY_FIRST_MS = 100;
const RETRY_MAX_MS = 2000;
/** Attempts to move one key onto a re-granted lease while others keep writing it. */
const RESTORE_ATTEMPTS = 10;

const noop = (): void => undefined;

/**
 * Why a lease was lost, in words: etcd3 reports a keep-alive that could not
 * reach etcd for twice the TTL as an `EtcdLeaseInvalidError` whose "lease
 * id" is its own sentence ("Lease We lost connection … is expired or revoked").
 */
function lossReason(error: Error): string {
  if (/We lost connection to etcd/.test(error.message)) return 'it expired while etcd could not be reached';
  if (error instanceof loadEtcd3().EtcdLeaseInvalidError) return 'etcd says it expired or was revoked';
  return errorMessage(error);
}

/**
 * The {@link WorkerPublisher} of {@link etcdDiscovery}.
 *
 * Every worker is a key `<prefix>/<namespace>/workers/<uid>` holding the
 * worker's protobuf metadata, attached to the lease of the publisher that
 * registered it. Each publisher has one lease (granted on its first
 * `worker-added`, kept alive every `ttl / 3`).
 *
 * - `worker-added` is one transaction: if the key is absent, it is put on
 *   this publisher's lease (this publisher registers the worker); if it is
 *   present, it is put with `ignore_lease` (the metadata changes, the key
 *   keeps its registrant's lease). Of two publishers adding the same absent
 *   uid at once, exactly one becomes the registrant.
 * - `worker-updated` puts with `ignore_lease` in a transaction that requires
 *   the key to exist, else rejects with {@link WorkerNotFoundError} and
 *   writes nothing.
 * - `worker-dropped` deletes the key, whoever registered it (nothing to
 *   delete: nothing happens).
 *
 * Ownership therefore is the key's lease: `close()` revokes this
 * publisher's lease, which deletes, in one revision, exactly the keys it
 * registered that are still registered; if etcd cannot be reached, the
 * lease expires on its own within `ttl`.
 *
 * If the lease is lost (expired while etcd was unreachable, revoked by
 * someone else), a new one is granted and every worker this publisher
 * registered is restored onto it: a key still on the lost lease moves over
 * with its current value; a key that is gone is registered again with the
 * metadata this publisher last wrote, unless another publisher registered
 * it meanwhile (then that one owns it).
 * @internal Created by {@link etcdDiscovery}; not exported.
 */
export class EtcdPublisher extends PublisherBase {
  readonly #settings: EtcdSettings;
  readonly #connection: EtcdConnection;
  readonly #diagnostics: Subject<DiscoveryDiagnostic>;
  /**
   * Workers this publisher registered whose keys carried its lease at its last write, with the metadata it last
   * wrote, by uid.
   */
  readonly #owned = new Map<string, WorkerInfo>();
  #client: Etcd3 | undefined;
  #lease: Lease | undefined;
  #leaseId: string | undefined;
  /** A lease lost and not yet recovered from: keys still on it are this publisher's too. */
  #lost: string | undefined;
  /**
   * Changes and lease recoveries run one after the other on this chain: a
   * recovery is started by the lease, not by `publish`, so it cannot join
   * PublisherBase's (private) queue, yet must not interleave with a change.
   */
  #idle: Promise<void> = Promise.resolve();

  /**
   * @param settings The discovery's settings.
   * @param connection The discovery's shared client.
   * @param diagnostics Where to report lease losses and recoveries.
   */
  constructor(settings: EtcdSettings, connection: EtcdConnection, diagnostics: Subject<DiscoveryDiagnostic>) {
    super(settings.namespace);
    this.#settings = settings;
    this.#connection = connection;
    this.#diagnostics = diagnostics;
  }

  protected override apply(type: DiscoveryEventType, worker: WorkerInfo): Promise<void> {
    return this.#exclusive(() => this.#write(type, worker));
  }

  /** Revokes the lease (withdrawing every worker it still holds), then releases the client. */
  protected override async shutdown(): Promise<void> {
    await this.#idle; // a lease recovery in progress ends at its next step (the publisher is closed)
    const lease = this.#lease;
    this.#lease = undefined;
    this.#leaseId = undefined;
    this.#owned.clear();
    try {
      if (lease !== undefined) await lease.revoke();
    } catch (error) {
      this.#report(
        'warning',
        `Could not revoke the lease on close (${errorMessage(error)}); ` +
          `its workers expire within ${this.#settings.ttl} s`,
        { error },
      );
    } finally {
      if (this.#client !== undefined) {
        this.#client = undefined;
        this.#connection.release();
      }
    }
  }

  #exclusive(task: () => Promise<void>): Promise<void> {
    const run = this.#idle.then(task);
    this.#idle = run.then(noop, noop);
    return run;
  }

  #report(kind: DiscoveryDiagnostic['kind'], text: string, extra: { uid?: string; error?: unknown } = {}): void {
    this.#diagnostics.next({ kind, namespace: this.namespace, message: text, ...extra });
  }

  #acquire(): Etcd3 {
    this.#client ??= this.#connection.acquire();
    return this.#client;
  }

  #key(uid: string): Buffer {
    return Buffer.from(`${this.#settings.workersPrefix}${uid}`, 'utf8');
  }

  async #write(type: DiscoveryEventType, worker: WorkerInfo): Promise<void> {
    const client = this.#acquire();
    const key = this.#key(worker.uid);
    // A subscription of this discovery started before this publish sees it as an event.
    await this.#connection.started();
    if (type === 'worker-dropped') {
      await client.kv.deleteRange({ key });
      this.#owned.delete(worker.uid);
      return;
    }
    const value = Buffer.from(encodeWorker(worker));
    const { CompareResult, CompareTarget } = loadEtcd3();
    // Present: change the metadata, keep the registrant's lease.
    const refresh = { request_put: { key, value, ignore_lease: true, prev_kv: true } };
    let previous: IKeyValue | undefined;
    if (type === 'worker-updated') {
      const result = await client.kv.txn({
        compare: [{ key, target: CompareTarget.Version, result: CompareResult.Greater, version: 0 }],
        success: [refresh],
        failure: [],
      });
      if (!result.succeeded) throw new WorkerNotFoundError(worker.uid, this.namespace);
      previous = result.responses[0]?.response_put.prev_kv;
    } else {
      const lease = await this.#ensureLease();
      const result = await client.kv.txn({
        compare: [{ key, target: CompareTarget.Version, result: CompareResult.Equal, version: 0 }],
        success: [{ request_put: { key, value, lease } }], // absent: this publisher registers it
        failure: [refresh],
      });
      if (result.succeeded) {
        this.#owned.set(worker.uid, worker);
        return;
      }
      previous = result.responses[0]?.response_put.prev_kv;
    }
    // The key kept its lease: this publisher owns it if that lease is its own.
    const holder = previous?.lease;
    if (holder !== undefined && (holder === this.#leaseId || holder === this.#lost)) {
      this.#owned.set(worker.uid, worker);
    } else {
      this.#owned.delete(worker.uid);
    }
  }

  /** The current lease's id, granting a lease first if there is none. */
  async #ensureLease(): Promise<string> {
    if (this.#leaseId !== undefined) return this.#leaseId;
    const lease = this.#acquire().lease(this.#settings.ttl);
    this.#lease = lease;
    lease.on('lost', (error: Error) => this.#onLost(lease, error));
    try {
      const id = await lease.grant();
      if (this.#lease === lease) this.#leaseId = id;
      return id;
    } catch (error) {
      if (this.#lease === lease) this.#lease = undefined;
      lease.release();
      throw error;
    }
  }

  #onLost(lease: Lease, error: Error): void {
    if (this.closed || lease !== this.#lease) return;
    const lost = this.#leaseId;
    this.#lease = undefined;
    this.#leaseId = undefined;
    if (lost === undefined) return; // never granted: the pending publish rejects
    this.#lost = lost;
    this.#report(
      'warning',
      `Lease ${lost} was lost: ${lossReason(error)}; granting a new one and restoring ${this.#owned.size} worker(s)`,
      { error },
    );
    void this.#exclusive(() => this.#recover(lost));
  }

  /** Re-grants a lease and restores every owned worker onto it; retries until done or closed. Never rejects. */
  async #recover(lost: string): Promise<void> {
    for (let attempt = 0; !this.closed; attempt++) {
      let problem: { readonly why: string; readonly error?: unknown };
      try {
        const lease = await this.#ensureLease();
        let restored = 0;
        let busy: string | undefined;
        for (const [uid, worker] of [...this.#owned]) {
          const outcome = await this.#restore(worker, lost, lease);
          if (outcome === 'restored') restored++;
          else if (outcome === 'taken')
            this.#owned.delete(uid); // another publisher registered it meanwhile
          else busy ??= uid;
        }
        if (busy === undefined) {
          if (this.#lost === lost) this.#lost = undefined;
          this.#report('recovered', `Re-published ${restored} worker(s) under lease ${lease}`);
          return;
        }
        problem = { why: `the key of worker ${busy} kept changing while it was being restored` };
      } catch (error) {
        problem = { why: errorMessage(error), error };
      }
      const delay = retryDelay(attempt, RETRY_FIRST_MS, RETRY_MAX_MS);
      // Said once per loss: the retries go on quietly until `recovered`.
      if (attempt === 0) {
        this.#report(
          'warning',
          `Re-publishing after the loss of lease ${lost} failed (${problem.why}); retrying until it succeeds`,
          'error' in problem ? { error: problem.error } : {},
        );
      }
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }

  /**
   * Puts one owned worker's key on the new lease.
   * @returns `'taken'` when the key is held by another lease now (someone
   * else registered it), `'busy'` when it kept changing under every attempt.
   */
  async #restore(worker: WorkerInfo, lost: string, lease: string): Promise<'restored' | 'taken' | 'busy'> {
    const client = this.#acquire();
    const key = this.#key(worker.uid);
    const { CompareResult, CompareTarget } = loadEtcd3();
    for (let attempt = 0; attempt < RESTORE_ATTEMPTS; attempt++) {
      const current = (await client.kv.range({ key })).kvs[0];
      if (current !== undefined && current.lease === lease) return 'restored';
      if (current !== undefined && current.lease !== lost) return 'taken';
      // Still on the lost lease: move it over with its current value (which may be another publisher's update).
      // Gone with the lost lease: register it again with what this publisher last wrote.
      const compare =
        current === undefined
          ? { key, target: CompareTarget.Version, result: CompareResult.Equal, version: 0 }
          : { key, target: CompareTarget.Mod, result: CompareResult.Equal, mod_revision: current.mod_revision };
      const value = current === undefined ? Buffer.from(encodeWorker(worker)) : current.value;
      const result = await client.kv.txn({
        compare: [compare],
        success: [{ request_put: { key, value, lease } }],
        failure: [],
      });
      if (result.succeeded) return 'restored';
    }
    return 'busy';
  }
}
