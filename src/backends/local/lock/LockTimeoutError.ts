import { WoolrxError } from '../../../errors/WoolrxError.js';

/** The namespace lock of the local backend could not be taken within `lockTimeout`. */
export class LockTimeoutError extends WoolrxError {
  /** The namespace whose lock was busy. */
  readonly namespace: string;
  /** How long acquisition was attempted, in milliseconds. */
  readonly timeout: number;

  /**
   * @param namespace The namespace whose lock was busy.
   * @param timeout How long acquisition was attempted, in milliseconds.
   * @param options Standard `ErrorOptions` (`cause`: the last lock error).
   */
  constructor(namespace: string, timeout: number, options?: ErrorOptions) {
    super(
      'WOOLRX_LOCK_TIMEOUT',
      `Could not lock namespace ${JSON.stringify(namespace)} within ${timeout} ms: another process holds it`,
      options,
    );
    this.namespace = namespace;
    this.timeout = timeout;
  }
}
