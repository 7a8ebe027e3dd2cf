/** TLS settings of {@link etcdDiscovery}: PEM text or bytes. */
export interface EtcdTlsOptions {
  /**
   * CA certificate(s) to trust for the servers' certificates (e.g. a
   * self-signed one). Default: the system's roots.
   */
  readonly ca?: string | Uint8Array | undefined;
  /** Client certificate chain, for clusters that require client certificates (mTLS). */
  readonly cert?: string | Uint8Array | undefined;
  /** Private key of `cert`. */
  readonly key?: string | Uint8Array | undefined;
}

/** User and password of an etcd cluster with authentication enabled. */
export interface EtcdAuthOptions {
  /** The etcd user name. */
  readonly username: string;
  /** The etcd user's password. */
  readonly password: string;
}

/** Options of {@link etcdDiscovery}. */
export interface EtcdDiscoveryOptions {
  /**
   * Client URLs of the cluster's members, `http://host:port` or
   * `https://host:port` (all the same scheme), as an array or one string
   * with commas. Default `http://127.0.0.1:2379`. A member may also be
   * written `host:port` or `[v6]:port`, as etcdctl takes it: it means
   * `https://host:port` when `tls` is given, `http://host:port` otherwise.
   */
  readonly endpoints?: string | readonly string[] | undefined;
  /**
   * Lease time-to-live of a publisher's workers, in whole seconds (at
   * least 1; etcd advises 5 or more, and raises very short ones to its
   * minimum). A publisher that dies without closing has its workers
   * dropped this long after its last keep-alive. Keep-alives go out every
   * `ttl / 3`. Default 10.
   */
  readonly ttl?: number | undefined;
  /**
   * Key prefix: workers live at `<prefix>/<namespace>/workers/<uid>`.
   * Must not end with `/`. Default `/woolrx`.
   */
  readonly prefix?: string | undefined;
  /** Connect over TLS (implied by `https://` endpoints); `true` uses the system's roots. */
  readonly tls?: EtcdTlsOptions | boolean | undefined;
  /** User and password, when the cluster has authentication enabled. */
  readonly auth?: EtcdAuthOptions | undefined;
  /**
   * Longest wait for one etcd request (publish, close's revoke, a page of
   * the initial read), in ms. Default 10 000.
   */
  readonly requestTimeout?: number | undefined;
}

/** Validated settings. @internal */
export interface EtcdSettings {
  readonly endpoints: readonly string[];
  readonly namespace: string;
  readonly ttl: number;
  readonly prefix: string;
  /** `<prefix>/<namespace>/workers/`, the key prefix of this namespace's workers. */
  readonly workersPrefix: string;
  readonly tls: { readonly ca?: Buffer; readonly cert?: Buffer; readonly key?: Buffer } | undefined;
  readonly auth: EtcdAuthOptions | undefined;
  readonly requestTimeout: number;
}
