/** Transport compression a worker asks its clients to use (wool's 0, 1, 2). */
export type Compression = 'none' | 'deflate' | 'gzip';

/**
 * Transport settings clients should use with a worker — wool's
 * `ChannelOptions`. Every field is always present; absent input means
 * {@link DEFAULT_CHANNEL_OPTIONS}.
 */
export interface ChannelOptions {
  readonly maxReceiveMessageLength: number;
  readonly maxSendMessageLength: number;
  readonly keepaliveTimeMs: number;
  readonly keepaliveTimeoutMs: number;
  readonly keepalivePermitWithoutCalls: boolean;
  readonly maxPingsWithoutData: number;
  readonly maxConcurrentStreams: number;
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
  readonly uid: string;
  readonly address: string;
  readonly pid: number;
  readonly version: string;
  readonly tags?: Iterable<string> | undefined;
  readonly extra?:
    | Readonly<Record<string, string>>
    | ReadonlyMap<string, string>
    | Iterable<readonly [string, string]>
    | undefined;
  readonly secure?: boolean | undefined;
  readonly options?: Partial<ChannelOptions> | undefined;
}

/** A test applied to a worker, e.g. by {@link filterWorkers}. */
export type WorkerPredicate = (worker: WorkerInfo) => boolean;

/** A worker's address, parsed by {@link parseAddress}. */
export type WorkerAddress =
  | { readonly kind: 'tcp'; readonly host: string; readonly port: number; readonly ipv6: boolean }
  | { readonly kind: 'unix'; readonly path: string };
