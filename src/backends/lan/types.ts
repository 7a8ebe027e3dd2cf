/**
 * Where peers should reach the workers a LAN publisher advertises: an IP
 * address or host name, or a function returning one (called lazily, once
 * per publisher, on its first publish).
 */
export type AdvertiseHost = string | (() => string | Promise<string>);

import type { LanSigningKey } from './lanSigning.js';

export type { LanSigningKey } from './lanSigning.js';

/** Options of {@link lanDiscovery}. */
export interface LanDiscoveryOptions {
  /**
   * The address advertised in A/AAAA records for every worker this
   * discovery's publishers register. A string is used verbatim (an IP
   * address; a host name is resolved once per publisher); a function is
   * called lazily, once per publisher. Default: each worker's own host; a
   * wildcard host (`0.0.0.0`, `::`) is replaced by this host's default-route
   * address, found once per publisher. A wildcard here is a `TypeError`.
   */
  readonly advertiseHost?: AdvertiseHost | undefined;
  /**
   * Probe a worker's name before announcing it (RFC 6762 §8.1, about 0.75 s).
   * Default `true`. Instance names are UUIDs, so `false` (announce at once)
   * is safe in practice.
   */
  readonly probe?: boolean | undefined;
  /**
   * How often, in ms, a subscription asks the network again for every worker
   * (a PTR query), renewing the workers that answer. Default
   * `min(10000, expireAfter / 3)`; must be below `expireAfter`.
   */
  readonly requeryInterval?: number | undefined;
  /**
   * A worker not seen (announced, or answering a query) for this many ms is
   * reported `worker-dropped` — the liveness check for hosts that died
   * without a goodbye. Default 30000.
   */
  readonly expireAfter?: number | undefined;
  /**
   * How long, in ms after its first query is sent, a subscription waits for
   * answers before its initial state counts as complete: then
   * `snapshots()` emits its first snapshot (empty when nobody answered).
   * A worker that answered but is still being resolved when it ends keeps
   * it open until resolved, for at most one more `syncWindow`.
   * mDNS has no "end of answers", so this is a window, not a signal. Default
   * 1000: responders answer within milliseconds on a LAN (wool's zeroconf
   * delays shared answers by 20-120 ms, RFC 6762 §6). Workers answering
   * later still arrive, as changes.
   */
  readonly syncWindow?: number | undefined;
  /**
   * The IPv4 address of the interface to send and receive mDNS on. Default:
   * every interface (multicast-dns's choice).
   */
  readonly interface?: string | undefined;
  /** UDP port of mDNS. Default 5353; other values only talk to peers configured alike. */
  readonly port?: number | undefined;
  /**
   * What `publish('worker-updated', w)` does for a uid this publisher has not
   * registered: `'reject'` with `WorkerNotFoundError` from `woolrx` (the
   * default: the contract's rule on every backend), or `'register'` it, as
   * wool's LAN discovery does (for a process that re-announces its workers
   * with updates after a restart).
   */
  readonly unknownUpdate?: 'register' | 'reject' | undefined;
  /**
   * A shared secret authenticating the records (HMAC-SHA-256), or several
   * (key rotation): the first signs what this discovery's publishers
   * announce, any of them verifies what its subscriptions see. With a key a
   * subscription lists only workers whose record is signed with one of the
   * keys for this namespace, uid, address and TXT fields, and is neither
   * older than a version already seen (rollback) nor, when newer, more than
   * 5 minutes from this host's clock (a replay); it skips the others with a
   * rate-limited `unauthenticated-record` diagnostic. Without a key nothing
   * changes (wool and keyless subscribers still see signed workers).
   *
   * The key rule: bytes (`Uint8Array`/`Buffer`) of at least 16 bytes with at
   * least 8 distinct values, or a string (its UTF-8 bytes are the key) of at
   * least 22 characters with at least 8 distinct characters, e.g. the output
   * of `openssl rand -base64 32`. A `TypeError` states the rule; the key
   * never appears in errors, diagnostics or logs.
   */
  readonly signingKey?: LanSigningKey | readonly LanSigningKey[] | undefined;
}
