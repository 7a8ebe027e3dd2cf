import { WoolrxError } from '../../errors/WoolrxError.js';

function rootMessage(error: unknown): string {
  let current = error;
  for (let depth = 0; depth < 8 && current instanceof Error && current.cause !== undefined; depth += 1)
    current = current.cause;
  const text = current instanceof Error ? current.message : String(current);
  return (text.split('\n')[0] ?? text).replace(/\.?\s*Resolution note:\s*$/, '');
}

/**
 * etcd could not be reached: no connection to any endpoint, a call that timed
 * out, a member that is not serving. The message names the endpoints and the
 * underlying failure (e.g. `14 UNAVAILABLE: No connection established`);
 * `cause` is etcd3's error. Publishers reject with it; subscriptions report it
 * on `diagnostics` while they retry. Code: `'WOOLRX_ETCD_UNAVAILABLE'`.
 */
export class EtcdUnavailableError extends WoolrxError {
  /** The endpoints the discovery was configured with. */
  readonly endpoints: readonly string[];

  /**
   * @param endpoints The configured endpoints.
   * @param cause etcd3's error.
   */
  constructor(endpoints: readonly string[], cause: unknown) {
    super('WOOLRX_ETCD_UNAVAILABLE', `etcd is unreachable at ${endpoints.join(', ')}: ${rootMessage(cause)}`, {
      cause,
    });
    this.endpoints = Object.freeze([...endpoints]);
  }
}
