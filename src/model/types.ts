/** Transport compression a worker asks its clients to use (wool's 0, 1, 2). */
export type Compression = 'none' | 'deflate' | 'gzip';

/**
 * Transport settings clients should use with a worker — wool's
 * `ChannelOptions`. Every field is always present; absent input means
 * {@link DEFAULT_CHANNEL_OPTIONS}.
 */
export interface ChannelOptions {
  /** Largest message the worker accepts, in bytes (gRPC `max_receive_message_length`; default 104 857 600). */
  readonly maxReceiveMessageLength: number;
  /** Largest message the worker sends, in bytes (gRPC `max_send_message_length`; default 104 857 600). */
  readonly maxSendMessageLength: number;
  /** Interval between keepalive pings, in ms (default 30 000). */
  readonly keepaliveTimeMs: number;
  /** How long to wait for a keepalive ping's acknowledgement, in ms (default 30 000). */
  readonly keepaliveTimeoutMs: number;
  /** Whether keepalive pings may be sent while no call is active (default `true`). */
  readonly keepalivePermitWithoutCalls: boolean;
  /** Most keepalive pings sent without data in between (default 2). */
  readonly maxPingsWithoutData: number;
  /** Most concurrent streams per connection (default 100). */
  readonly maxConcurrentStreams: number;
  /** Transport compression (default `'none'`). */
  readonly compression: Compression;
}

/**
 * One worker's metadata, as wool describes it. Immutable (deeply frozen)
 * and plain: it survives `structuredClone`, `postMessage` and
 * `JSON.stringify` unchanged. Build one with {@link workerInfo}, which
 * validates every field; compare two with {@link sameWorker}.
 */
export interface WorkerInfo {
  /** Hyphenated lowercase UUID; the worker's identity. */
  readonly uid: string;
  /** `host:port`, `[v6]:port` or `unix:path`. */
  readonly address: string;
  /** Worker process id (non-negative int32). */
  readonly pid: number;
  /** Worker software version. */
  readonly version: string;
  /** Capability tags: a set, kept sorted and without duplicates. */
  readonly tags: readonly string[];
  /** Free key/value metadata. */
  readonly extra: Readonly<Record<string, string>>;
  /** The worker requires TLS/mTLS. */
  readonly secure: boolean;
  /** Transport settings clients should use. */
  readonly options: ChannelOptions;
}

/**
 * What {@link workerInfo} accepts: the required fields, plus any optional
 * ones. `tags` may be any iterable of strings (a `Set`, an array);
 * `extra` a plain object, a `Map` or an iterable of `[key, value]` pairs;
 * `options` a partial `ChannelOptions` laid over the defaults.
 */
export interface WorkerInfoInit {
  /** Hyphenated UUID (any case; stored lowercase). */
  readonly uid: string;
  /** `host:port`, `[v6]:port` or `unix:path`. */
  readonly address: string;
  /** Worker process id (non-negative int32). */
  readonly pid: number;
  /** Worker software version. */
  readonly version: string;
  /** Capability tags, any iterable of strings; stored sorted and without duplicates. Default none. */
  readonly tags?: Iterable<string> | undefined;
  /** Free key/value metadata: a plain object, a `Map` or `[key, value]` pairs. Default none. */
  readonly extra?:
    Readonly<Record<string, string>> | ReadonlyMap<string, string> | Iterable<readonly [string, string]> | undefined;
  /** The worker requires TLS/mTLS. Default `false`. */
  readonly secure?: boolean | undefined;
  /** Transport settings, laid over {@link DEFAULT_CHANNEL_OPTIONS}. */
  readonly options?: Partial<ChannelOptions> | undefined;
}

/** A test applied to a worker, e.g. by {@link filterWorkers}. */
export type WorkerPredicate = (worker: WorkerInfo) => boolean;

/** A worker's address, parsed by {@link parseAddress}. */
export type WorkerAddress =
  | {
      /** A TCP address: `host:port` or `[v6]:port`. */
      readonly kind: 'tcp';
      /** Host name or IP address, without brackets for IPv6. */
      readonly host: string;
      /** TCP port. */
      readonly port: number;
      /** The host is an IPv6 address (written in brackets). */
      readonly ipv6: boolean;
    }
  | {
      /** A Unix domain socket: `unix:path`. */
      readonly kind: 'unix';
      /** Filesystem path of the socket. */
      readonly path: string;
    };
