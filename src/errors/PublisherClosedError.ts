import { WoolrxError } from './WoolrxError.js';

/** `publish` was called on a publisher that has been disposed. */
export class PublisherClosedError extends WoolrxError {
  /** The publisher's namespace. */
  readonly namespace: string;

  /** @param namespace The publisher's namespace. */
  constructor(namespace: string) {
    super('WOOLRX_PUBLISHER_CLOSED', `Publisher for namespace ${JSON.stringify(namespace)} is closed`);
    this.namespace = namespace;
  }
}
