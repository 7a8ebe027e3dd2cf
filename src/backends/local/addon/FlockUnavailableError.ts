import { WoolrxError } from '../../../errors/WoolrxError.js';

/**
 * `woolrx/local` could not load its `flock(2)` addon: no prebuilt binary
 * matches this platform (woolrx ships linux-x64 glibc and musl, and
 * linux-arm64 glibc), or the one that matches failed to load (for example
 * from inside an Electron asar archive). The message names the platform,
 * the file tried and what to do.
 *
 * The addon is loaded on first use, so `woolrx/local` always imports; the
 * error arrives where the lock is needed: a rejected `publish()` or a stream
 * error. Code: `'WOOLRX_FLOCK_UNAVAILABLE'`.
 */
export class FlockUnavailableError extends WoolrxError {
  /** The platform looked for, e.g. `'linux-x64 (glibc)'`. */
  readonly platform: string;

  /**
   * @param platform The platform looked for, e.g. `'linux-x64 (glibc)'`.
   * @param detail What was tried and what to do.
   * @param options Standard `ErrorOptions` (`cause`: the loader's error).
   */
  constructor(platform: string, detail: string, options?: ErrorOptions) {
    super('WOOLRX_FLOCK_UNAVAILABLE', `woolrx/local cannot take flock(2) locks on ${platform}: ${detail}`, options);
    this.platform = platform;
  }
}
