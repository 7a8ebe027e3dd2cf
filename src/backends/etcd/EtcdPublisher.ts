import { checkPublish } from '../../discovery/checkPublish.js';
import { CompareResult, CompareTarget, type Etcd3, type IKeyValue, type Lease } from 'etcd3';
import type { Subject } from 'rxjs';
import { encodeWorker } from '../../codec/encodeWorker.js';
import type { DiscoveryDiagnostic, WorkerPublisher } from '../../discovery/types.js';
import type { DiscoveryEventType } from '../../events/types.js';
import { WorkerNotFoundError } from '../../errors/WorkerNotFoundError.js';
import type { WorkerInfo } from '../../model/types.js';
import type { EtcdConnection } from './EtcdConnection.js';
import type { EtcdSettings } from './types.js';

const RETRY_FIRST_MS = 100;
const RETRY_MAX_MS = 2000;

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * The {@link WorkerPublisher} of {@link etcdDiscovery}.
 *
 * Every worker it publishes is a key `<prefix>/<namespace>/workers/<uid>`
 * holding the worker's protobuf metadata, attached to this publisher's one
 * lease (granted on the first publish, kept alive every `ttl / 3`).
 *
 * - `worker-added` puts the key (a re-add overwrites it: subscribers see an
 *   update, or nothing when the metadata is unchanged);
 * - `worker-updated` puts it in a transaction that requires the key to
 *   exist, else rejects with {@link WorkerNotFoundError} and writes nothing;
 * - `worker-dropped` deletes it (nothing to delete: nothing happens).
 *
 * Changes are applied one at a time, in call order. The publisher that last
 * put a worker owns it (its lease holds the key); taking over a worker
 * another publisher's lease held is reported as a `warning`.
 *
 * If the lease is lost (expired while etcd was unreachable, revoked by
 * someone else), a new one is granted and every worker this publisher still
 * owns is put again — unless another publisher has taken it over meanwhile.
 * `close()` revokes the lease, which deletes all its keys at once; if etcd
 * cannot be reached, the lease expires on its own within `ttl`.
 * @internal Created by {@link etcdDiscovery}; not exported.
 */
export class EtcdPublisher implements WorkerPublisher {
  readonly namespace: string;
  readonly #settings: EtcdSettings;
  readonly #connection: EtcdConnection;
  readonly #diagnostics: Subject<DiscoveryDiagnostic>;
  /** Workers this publisher put and still owns, by uid. */
  readonly #owned = new Map<string, WorkerInfo>();
  #client: Etcd3 | undefined;
  #lease: Lease | undefined;
  #leaseId: string | undefined;
  #queue: Promise<unknown> = Promise.resolve();
  #closed = false;
  #closing: Promise<void> | undefined;

  /**
   * @param settings The discovery's settings.
   * @param connection The discovery's shared client.
   * @param diagnostics Where to report take-overs and lease recoveries.
   */
  constructor(settings: EtcdSettings, connection: EtcdConnection, diagnostics: Subject<DiscoveryDiagnostic>) {
    this.namespace = settings.namespace;
    this.#settings = settings;
    this.#connection = connection;
    this.#diagnostics = diagnostics;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** The id of the current lease (decimal), once granted. */
  get leaseId(): string | undefined {
    return this.#leaseId;
  }

  /**
   * Publishes one change (see {@link WorkerPublisher.publish}).
   * @param type What happened to the worker.
   * @param worker The worker's metadata; re-validated.
   * @returns Resolves once etcd has committed the change.
   * @throws {TypeError} (as a rejection) On a bad type or worker.
   * @throws {WorkerNotFoundError} (as a rejection) On `worker-updated` of a uid the namespace does not hold.
   * @throws {PublisherClosedError} (as a rejection) After `close()`.
   */
  publish(type: DiscoveryEventType, worker: WorkerInfo): Promise<void> {
    let checked: WorkerInfo;
    try {
      checked = checkPublish(this.namespace, this.#closed, type, worker);
    } catch (error: unknown) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    return this.#enqueue(() => this.#apply(type, checked));
  }

  /** Revokes the lease (withdrawing every worker it holds), then releases the client. Idempotent. */
  close(): Promise<void> {
    if (this.#closing === undefined) {
      this.#closed = true;
      this.#closing = this.#queue.then(() => this.#shutdown());
    }
    return this.#closing;
  }

  /** Same as {@link EtcdPublisher.close}, for `await using`. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  #enqueue<T>(operation: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(operation);
    this.#queue = run.catch(() => undefined);
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

  async #apply(type: DiscoveryEventType, worker: WorkerInfo): Promise<void> {
    const client = this.#acquire();
    const key = this.#key(worker.uid);
    // A subscription of this discovery started before this publish sees it as an event.
    await this.#connection.started();
    if (type === 'worker-dropped') {
      await client.kv.deleteRange({ key });
      this.#owned.delete(worker.uid);
      return;
    }
    const lease = await this.#ensureLease();
    const put = { key, value: Buffer.from(encodeWorker(worker)), lease, prev_kv: true };
    let previous: IKeyValue | undefined;
    if (type === 'worker-added') {
      previous = (await client.kv.put(put)).prev_kv;
    } else {
      const result = await client.kv.txn({
        compare: [{ key, target: CompareTarget.Version, result: CompareResult.Greater, version: 0 }],
        success: [{ request_put: put }],
        failure: [],
      });
      if (!result.succeeded) throw new WorkerNotFoundError(worker.uid, this.namespace);
      previous = result.responses[0]?.response_put.prev_kv;
    }
    this.#owned.set(worker.uid, worker);
    const previousLease = previous?.lease;
    if (previousLease !== undefined && previousLease !== null && previousLease !== '0' && previousLease !== lease) {
      this.#report(
        'warning',
        `Worker ${worker.uid} was held by another lease (${previousLease}); this publisher owns it now and withdraws it on close`,
        { uid: worker.uid },
      );
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
    if (this.#closed || lease !== this.#lease) return;
    const lost = this.#leaseId;
    this.#lease = undefined;
    this.#leaseId = undefined;
    if (lost === undefined) return; // never granted: the pending publish rejects
    this.#report(
      'warning',
      `Lease ${lost} was lost (${error.message}); granting a new one and re-publishing ${this.#owned.size} worker(s)`,
      { error },
    );
    this.#enqueue(() => this.#recover(lost)).catch(() => undefined);
  }

  /** Re-grants a lease and re-puts every owned worker whose key is gone or still on the lost lease. */
  async #recover(lost: string): Promise<void> {
    for (let attempt = 0; !this.#closed; attempt++) {
      try {
        const lease = await this.#ensureLease();
        const client = this.#acquire();
        let restored = 0;
        for (const [uid, worker] of [...this.#owned]) {
          const key = this.#key(uid);
          const put = { request_put: { key, value: Buffer.from(encodeWorker(worker)), lease } };
          const onLost = await client.kv.txn({
            compare: [{ key, target: CompareTarget.Lease, result: CompareResult.Equal, lease: lost }],
            success: [put],
            failure: [{ request_range: { key } }],
          });
          if (onLost.succeeded) {
            restored++;
            continue;
          }
          const current = onLost.responses[0]?.response_range.kvs[0];
          if (current !== undefined && current.lease === lease) {
            restored++;
            continue;
          }
          const gone =
            current === undefined &&
            (
              await client.kv.txn({
                compare: [{ key, target: CompareTarget.Version, result: CompareResult.Equal, version: 0 }],
                success: [put],
                failure: [],
              })
            ).succeeded;
          if (gone) restored++;
          else this.#owned.delete(uid); // another publisher holds it now
        }
        this.#report('recovered', `Re-published ${restored} worker(s) under lease ${lease}`);
        return;
      } catch (error) {
        const delay = Math.min(RETRY_MAX_MS, RETRY_FIRST_MS * 2 ** attempt);
        this.#report('warning', `Re-publishing after the loss of lease ${lost} failed (${message(error)}); retrying in ${delay} ms`, {
          error,
        });
        await new Promise((resolve) => setTimeout(resolve, delay));
      }
    }
  }

  async #shutdown(): Promise<void> {
    const lease = this.#lease;
    this.#lease = undefined;
    this.#leaseId = undefined;
    this.#owned.clear();
    try {
      if (lease !== undefined) await lease.revoke();
    } catch (error) {
      this.#report(
        'warning',
        `Could not revoke the lease on close (${message(error)}); its workers expire within ${this.#settings.ttl} s`,
        { error },
      );
    } finally {
      if (this.#client !== undefined) {
        this.#client = undefined;
        this.#connection.release();
      }
    }
  }
}
