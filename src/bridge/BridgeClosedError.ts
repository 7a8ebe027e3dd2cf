import { WoolrxError } from '../errors/WoolrxError.js';

/**
 * The bridge went away under a subscription: the port closed, or the
 * owning side stopped exposing its workers. Code `WOOLRX_BRIDGE_CLOSED`.
 */
export class BridgeClosedError extends WoolrxError {
  /** @param reason What happened, e.g. `'the port closed'`. */
  constructor(reason: string) {
    super('WOOLRX_BRIDGE_CLOSED', `Worker bridge closed: ${reason}`);
  }
}
