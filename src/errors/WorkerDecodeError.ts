import { WoolrxError } from './WoolrxError.js';

/** Bytes or a record from the outside world are not valid worker metadata. */
export class WorkerDecodeError extends WoolrxError {
  /**
   * @param message What is wrong, naming the bad value.
   * @param options Standard `ErrorOptions` (`cause`).
   */
  constructor(message: string, options?: ErrorOptions) {
    super('WOOLRX_DECODE', message, options);
  }
}
