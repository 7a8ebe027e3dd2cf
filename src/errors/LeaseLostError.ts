import { WoolrxError } from './WoolrxError.js';

/**
 * Why a worker lease of `leaseWorkers` was lost: `'dropped'` (the worker
 * went away), `'updated'` (its new metadata no longer passes the lease's
 * predicate, or the predicate threw: `cause`), `'closed'` (the pool ended:
 * closed, or its source completed or failed: `cause`).
 */
export type LeaseLostReason = 'dropped' | 'updated' | 'closed';

/**
 * The reason of a lease's `lost` signal (`lease.lost.reason`, and what
 * `lease.lost.throwIfAborted()` throws): the leased worker can no longer be
 * relied on. Code `WOOLRX_LEASE_LOST`.
 */
export class LeaseLostError extends WoolrxError {
  /** The leased worker's uid. */
  readonly uid: string;
  /** What happened. */
  readonly reason: LeaseLostReason;

  /**
   * @param uid The leased worker's uid.
   * @param reason What happened.
   * @param detail The end of the message (what happened, in words).
   * @param options `cause`: the predicate's error, or why the pool ended.
   */
  constructor(uid: string, reason: LeaseLostReason, detail: string, options?: ErrorOptions) {
    super('WOOLRX_LEASE_LOST', `Lease of worker ${uid} lost: ${detail}`, options);
    this.uid = uid;
    this.reason = reason;
  }
}
