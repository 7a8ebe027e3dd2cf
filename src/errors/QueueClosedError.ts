import { WoolrxError } from './WoolrxError.js';

/**
 * An item was offered to a {@link PredicatedQueue} that no longer accepts
 * items: it was closed with `close()` or failed with `error(err)` (then
 * `cause` is that `err`). Also the rejection of a `put` still waiting for
 * space when the queue closes.
 */
export class QueueClosedError extends WoolrxError {
  /** @param options Standard `ErrorOptions`; `cause` is the queue's error, if it failed. */
  constructor(options?: ErrorOptions) {
    super(
      'WOOLRX_QUEUE_CLOSED',
      options !== undefined && 'cause' in options
        ? 'Queue has failed and accepts no more items'
        : 'Queue is closed and accepts no more items',
      options,
    );
  }
}
