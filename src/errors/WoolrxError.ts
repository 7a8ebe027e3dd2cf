/**
 * Base class of every error woolrx throws or sends down a stream.
 *
 * `code` is stable and machine-readable (`'WOOLRX_WORKER_NOT_FOUND'`, ...);
 * match on it, or on the subclass, never on the message text.
 */
export class WoolrxError extends Error {
  /** Stable, machine-readable error code. */
  readonly code: string;

  /**
   * @param code Stable, machine-readable error code.
   * @param message Human-readable message naming the offending value.
   * @param options Standard `ErrorOptions` (`cause`).
   */
  constructor(code: string, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}
