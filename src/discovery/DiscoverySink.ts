import type { DiscoveryEvent } from '../events/types.js';

/**
 * Where a backend's watch reports, once per subscription (see
 * {@link createDiscovery}).
 * @internal
 */
export interface DiscoverySink {
  /** A change subscribers must see (already decided by a {@link WorkerLedger}). */
  next(event: DiscoveryEvent): void;
  /**
   * The initial state is complete: every worker registered when the
   * subscription started has been reported (there may be none). Call it
   * once; later calls are ignored.
   */
  synced(): void;
  /** The subscription failed; nothing is reported after. */
  error(error: unknown): void;
  /** The subscriber is gone (or the stream ended): stop emitting, even in the middle of a burst. */
  readonly closed: boolean;
}
