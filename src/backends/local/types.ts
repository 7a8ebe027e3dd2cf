/** Options of {@link localDiscovery}. Every field is optional. */
export interface LocalDiscoveryOptions {
  /**
   * Worker slots of the namespace segment, used when this process creates
   * it (an existing segment keeps the capacity in its header). Default 128.
   */
  readonly capacity?: number | undefined;
  /**
   * Bytes of each worker block this process creates (u32 length + protobuf),
   * an integer from 16 to 16 MiB (`1 << 24`). A worker whose record does not
   * fit is rejected with `BlockExhaustedError`. Default 1024 (wool's).
   */
  readonly blockSize?: number | undefined;
  /**
   * Longest wait for the namespace lock (woolrx's lock and wool's `flock`
   * together), in whole ms (fractions are rejected), before a publish fails
   * with {@link LockTimeoutError}. `Infinity`: wait without bound (wool's
   * `None`). A subscriber's own background work (reclaiming dead workers,
   * the last one out's cleanup) waits at most 30 000 ms whatever this is.
   * Default 30 000.
   */
  readonly lockTimeout?: number | undefined;
  /**
   * Fallback rescan period in ms, in case a notification is missed; also
   * paces the liveness sweep. `0` or `false` disables the timer. Default 1 000.
   */
  readonly pollInterval?: number | false | undefined;
  /**
   * Report workers whose pid no longer exists on this host as dropped and
   * reclaim their slot and block. Default `true`.
   */
  readonly liveness?: boolean | undefined;
  /** Temp directory for the lock and notification files. Default `os.tmpdir()` (realpath'd). */
  readonly tmpdir?: string | undefined;
}

/** Every name and path one namespace uses. @internal */
export interface LocalNames {
  readonly namespace: string;
  /** `short_hash(namespace)`. */
  readonly segmentName: string;
  /** `/dev/shm/<segmentName>`. */
  readonly segmentPath: string;
  /** Directory holding the POSIX shared-memory objects (`/dev/shm`). */
  readonly shmDir: string;
  /**
   * `<tmp>/wool-lock-<short_hash(namespace)>`: wool's lock file. woolrx
   * holds an exclusive `flock(2)` on it (inside its own lock) across every
   * read-modify-write, as wool does.
   */
  readonly lockPath: string;
  /**
   * `/dev/shm/woolrx-lock-<short_hash(namespace)>`: woolrx's lock directory
   * (mode 0700), holding its lock file and journal. On tmpfs, beside the
   * segment; one level down so that its writes raise no event for
   * `/dev/shm` watchers.
   */
  readonly lockDirPath: string;
  /**
   * `/dev/shm/woolrx-lock-<short_hash(namespace)>/lock`: woolrx's lock, an
   * exclusive `flock(2)` taken before wool's (a kernel lock: released at
   * once when its holder dies). Its first 16 bytes name the worker whose
   * block a critical section is creating or removing (zeros otherwise), so
   * that the next holder reclaims the block of a holder that died mid-way.
   */
  readonly rxLockPath: string;
  /** `/dev/shm/woolrx-lock-<short_hash(namespace)>/journal`: woolrx's change journal (see Journal). */
  readonly journalPath: string;
  /** `<tmp>/wool-<namespace>`. */
  readonly notifyDir: string;
  /** `<tmp>/wool-<namespace>/notify`. */
  readonly notifyPath: string;
  /** `<tmp>/wool-<namespace>/.woolrx-segment`: inode of the segment woolrx created (woolrx unlinks only those). */
  readonly ownerPath: string;
}

/** Resolved options. @internal */
export interface LocalSettings {
  readonly capacity: number;
  readonly blockSize: number;
  readonly lockTimeout: number;
  readonly pollInterval: number;
  readonly liveness: boolean;
}
