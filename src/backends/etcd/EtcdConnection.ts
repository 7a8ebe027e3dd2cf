import type { Etcd3, IOptions } from 'etcd3';
import type { Discovery } from '../../discovery/types.js';
import { hostBreaker } from './hostBreaker.js';
import { loadEtcd3 } from './loadEtcd3.js';
import { unavailableAsWoolrx } from './unavailableAsWoolrx.js';
import type { EtcdSettings } from './types.js';

const byDiscovery = new WeakMap<Discovery, EtcdConnection>();

/**
 * The etcd client of one {@link etcdDiscovery}, shared by its subscriptions
 * and publishers and reference-counted: created by the first `acquire()`,
 * closed by the last `release()`, so a process whose streams and publishers
 * are all gone holds no connection and can exit.
 * @internal
 */
export class EtcdConnection {
  readonly #settings: EtcdSettings;
  #client: Etcd3 | undefined;
  #users = 0;
  readonly #starting = new Set<Promise<void>>();

  /** @param settings Endpoints, TLS, auth, request timeout. */
  constructor(settings: EtcdSettings) {
    this.#settings = settings;
  }

  /**
   * The connection of a discovery, for tests that check nothing is left open.
   * @param discovery A discovery made by {@link etcdDiscovery}.
   * @returns Its connection, or `undefined` for any other discovery.
   */
  static of(discovery: Discovery): EtcdConnection | undefined {
    return byDiscovery.get(discovery);
  }

  /**
   * Records the connection of a discovery (see {@link EtcdConnection.of}).
   * @param connection Its connection.
   */
  static register(discovery: Discovery, connection: EtcdConnection): void {
    byDiscovery.set(discovery, connection);
  }

  /** Number of subscriptions and publishers holding the client. */
  get users(): number {
    return this.#users;
  }

  /** Whether a client is open. */
  get open(): boolean {
    return this.#client !== undefined;
  }

  /**
   * The client, created on first use; pair every call with {@link EtcdConnection.release}.
   * @throws {MissingDependencyError} When the optional peer `etcd3` is not installed (nothing is acquired then).
   */
  acquire(): Etcd3 {
    if (this.#client === undefined) this.#client = new (loadEtcd3().Etcd3)(this.#options());
    this.#users++;
    return this.#client;
  }

  /** Gives the client back; the last user closes it. */
  release(): void {
    if (this.#users === 0) return;
    this.#users--;
    if (this.#users === 0 && this.#client !== undefined) {
      const client = this.#client;
      this.#client = undefined;
      client.close();
    }
  }

  /**
   * Records the first read of a subscription that is starting, so that
   * publishers of this discovery can wait for it ({@link EtcdConnection.started}).
   * @param read Settles once the subscription has read the namespace (or failed to).
   */
  track(read: Promise<void>): void {
    this.#starting.add(read);
    const forget = (): void => void this.#starting.delete(read);
    read.then(forget, forget);
  }

  /**
   * Settles once every subscription started so far has made its first read:
   * a change a publisher writes after that is seen by each of them as an
   * event, never folded into their initial state or lost.
   */
  async started(): Promise<void> {
    if (this.#starting.size > 0) await Promise.allSettled([...this.#starting]);
  }

  #options(): IOptions {
    const { endpoints, tls, auth, requestTimeout } = this.#settings;
    const options: IOptions = {
      hosts: [...endpoints],
      // Unary calls get a deadline; streams (watch, keep-alive) live on.
      defaultCallOptions: (context) => (context.isStream ? {} : { deadline: Date.now() + requestTimeout }),
      dialTimeout: requestTimeout,
      // Unreachable etcd: an EtcdUnavailableError naming the endpoints, not etcd3's bare error.
      faultHandling: { host: (host) => hostBreaker(host), global: unavailableAsWoolrx(endpoints) },
      grpcOptions: {
        // Notice a silently dead connection (etcd accepts pings every 5 s or slower).
        'grpc.keepalive_time_ms': 10_000,
        'grpc.keepalive_timeout_ms': 5_000,
        'grpc.max_receive_message_length': 64 * 1024 * 1024,
      },
    };
    if (tls !== undefined && (tls.ca !== undefined || tls.cert !== undefined)) {
      // grpc accepts a missing root certificate (then: the system's roots).
      options.credentials = {
        rootCertificate: tls.ca as Buffer,
        ...(tls.key === undefined ? {} : { privateKey: tls.key }),
        ...(tls.cert === undefined ? {} : { certChain: tls.cert }),
      };
    }
    if (auth !== undefined) options.auth = { username: auth.username, password: auth.password };
    return options;
  }
}
