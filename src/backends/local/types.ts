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

/** Resolved options. @internal */
export interface LocalSettings {
  readonly capacity: number;
  readonly blockSize: number;
  readonly lockTimeout: number;
  readonly pollInterval: number;
  readonly liveness: boolean;
}
