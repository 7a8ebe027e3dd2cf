import type { SchedulerLike } from 'rxjs';
import type { DiscoveryDiagnostic } from '../discovery/types.js';
import type { WorkerPredicate } from '../model/types.js';

/** Options of {@link relayWorkers}. */
export interface RelayOptions {
  /**
   * The host (IP address or name) that replaces a loopback host
   * (`127.0.0.0/8`, `::1`, `localhost`) or a wildcard host (`0.0.0.0`, `::`)
   * in a relayed worker's address, so that peers on other hosts can reach
   * it: this host's address on the network the target spans. Without it
   * such a worker is not relayed (one `relay-skipped` item says why). A
   * loopback or wildcard value is a `TypeError`.
   */
  readonly advertiseHost?: string | undefined;
  /**
   * The target is seen only on this host (a `localDiscovery` or
   * `memoryDiscovery` target): addresses are relayed as they are, loopback,
   * wildcard and `unix:` included. Default `false`.
   */
  readonly sameHost?: boolean | undefined;
  /**
   * The pid written in relayed workers in place of theirs. A local target
   * ties a worker's life to its pid (a worker whose pid is not a live
   * process on this host is reclaimed), so relaying into `localDiscovery`
   * needs the relay's own: `process.pid` (the CLI passes it for
   * `--to local`). Default: each worker's own pid.
   */
  readonly pid?: number | undefined;
  /**
   * Only workers passing this test are relayed; a worker whose update makes
   * it fail is withdrawn from the target (as {@link filterWorkers} does).
   * With a `Discovery` source it is passed to `source.watch(filter)`.
   */
  readonly filter?: WorkerPredicate | undefined;
  /**
   * The relay's name, written as the value of the relay mark
   * ({@link RELAY_MARK}) in every worker it puts in the target. A relay
   * manages in the target only the workers carrying its own name: give
   * each relay into one target namespace its own, and keep it across
   * restarts (a restarted relay then withdraws at once what its previous run
   * left behind, instead of waiting for the target's expiry). Default: a
   * random name per subscription.
   */
  readonly id?: string | undefined;
  /** Where retries are timed and status items are coalesced. Default `asyncScheduler`. */
  readonly scheduler?: SchedulerLike | undefined;
}

/** Whether the relay's last writes to the target went through. */
export type RelayTargetState = 'up' | 'down';

/**
 * The relay's counts and state, emitted at start and whenever they change
 * (changes within one scheduler turn are coalesced into one item).
 */
export interface RelayStatusUpdate {
  /** Always `'relay-status'`. */
  readonly type: 'relay-status';
  /** Source workers the relay keeps in the target. */
  readonly relayed: number;
  /** Source workers it does not relay (see the `relay-skipped` items). */
  readonly skipped: number;
  /** Writes to the target not yet acknowledged. */
  readonly pending: number;
  /** `'down'` from a failed write until a retry re-synced the target. */
  readonly target: RelayTargetState;
  /**
   * The target holds what the source holds (both initial states are
   * complete, the target is up and every write is acknowledged).
   */
  readonly synced: boolean;
}

/** A source worker the relay does not relay, and why (once per worker and reason). */
export interface RelaySkipped {
  /** Always `'relay-skipped'`. */
  readonly type: 'relay-skipped';
  /** The worker. */
  readonly uid: string;
  /** Why, naming the fix where there is one. */
  readonly reason: string;
}

/** A write to the target that failed: the target is down (no `uid`), or refused one worker (`uid`). */
export interface RelayError {
  /** Always `'relay-error'`. */
  readonly type: 'relay-error';
  /** What failed. */
  readonly message: string;
  /** The worker the target refused, when the failure is that worker's. */
  readonly uid?: string;
  /** The error's `code`, when it has one (`WOOLRX_ETCD_UNAVAILABLE`, ...). */
  readonly code?: string;
}

/** A diagnostic of the source's or the target's discovery, passed on. */
export interface RelayDiagnostic {
  /** Always `'relay-diagnostic'`. */
  readonly type: 'relay-diagnostic';
  /** Whose diagnostic it is. */
  readonly side: 'source' | 'target';
  /** The diagnostic's kind. */
  readonly kind: DiscoveryDiagnostic['kind'];
  /** The diagnostic's message. */
  readonly message: string;
  /** The worker concerned, when known. */
  readonly uid?: string;
  /** The underlying error's `code`, when it has one. */
  readonly code?: string;
}

/**
 * What {@link relayWorkers} emits: plain objects, safe to
 * `JSON.stringify` (one per line makes NDJSON).
 */
export type RelayStatus = RelayStatusUpdate | RelaySkipped | RelayError | RelayDiagnostic;
