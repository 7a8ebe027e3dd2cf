import { WoolrxError } from './WoolrxError.js';

/**
 * An item was offered to a {@link PredicatedQueue} that no longer accepts
 * items: it was closed with `close()` or failed with `error(err)` (then
 * `cause` is that `err`). Also the rejection of a `put` still waiting for
 * space when the queue closes, and of a `leaseWorkers` acquire once the
 * pool has ended (closed, or its source completed or failed: `cause`).
 */
export class QueueClosedError extends WoolrxError {
  /**
   * @param options Standard `ErrorOptions`; `cause` is the queue's error, if it failed.
   * @param message What ended, when the queue's own words do not say it.
   */
  constructor(options?: ErrorOptions, message?: string) {
    super(
      'WOOLRX_QUEUE_CLOSED',
      message ??
        (options !== undefined && 'cause' in options
          ? 'Queue has failed and accepts no more items'
          : 'Queue is closed and accepts no more items'),
      options,
    );
  }
}
