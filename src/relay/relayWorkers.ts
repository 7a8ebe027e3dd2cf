import { asyncScheduler, isObservable, Observable, type SchedulerLike } from 'rxjs';
import { readOptions } from '../discovery/readOptions.js';
import type { Discovery } from '../discovery/types.js';
import type { DiscoveryEvent, DiscoveryItem } from '../events/types.js';
import { describeValue } from '../model/describeValue.js';
import { isLoopbackHost } from '../model/isLoopbackHost.js';
import { isWildcardHost } from '../model/isWildcardHost.js';
import type { WorkerPredicate } from '../model/types.js';
import { RelayRun } from './RelayRun.js';
import type { RelayOptions, RelayStatus } from './types.js';

const OPTIONS = ['advertiseHost', 'sameHost', 'pid', 'filter', 'id', 'scheduler'] as const;
// A lone UTF-16 surrogate has no UTF-8 form: no backend could store the mark.
const LONE_SURROGATE = /\p{Surrogate}/u;

function isDiscovery(value: unknown): value is Discovery {
  const candidate = value as Partial<Discovery> | null;
  return (
    typeof candidate === 'object' &&
    candidate !== null &&
    typeof candidate.watch === 'function' &&
    typeof candidate.publisher === 'function' &&
    isObservable(candidate.diagnostics)
  );
}

function randomId(): string {
  const bytes = new Uint8Array(8);
  const crypto = (globalThis as { crypto?: { getRandomValues?: (array: Uint8Array) => Uint8Array } }).crypto;
  if (typeof crypto?.getRandomValues === 'function') crypto.getRandomValues(bytes);
  else for (let i = 0; i < bytes.length; i++) bytes[i] = Math.floor(Math.random() * 256);
  return `relay-${[...bytes].map((byte) => byte.toString(16).padStart(2, '0')).join('')}`;
}

/**
 * Relays one discovery's workers into another: every worker of `source` is
 * published in `target` and kept there as it changes, until unsubscribed.
 * A host's local (or LAN) workers relayed into etcd make one cluster-wide
 * pool; local workers relayed to the LAN appear to wool's LAN subscribers.
 *
 * Cold: subscribing starts it (a watch of the source, a watch of the target
 * and one publisher of the target); unsubscribing withdraws every worker it
 * put in the target (the publisher's `close()`, in the background) and stops.
 * When the source completes, the relay withdraws its workers, emits a last
 * `relay-status` and completes — so `takeUntil` on the source, then waiting
 * for completion, is the way to stop it and know the target is clean. When
 * the source or the target's watch errors, the relay withdraws, then errors.
 *
 * - **Copies** adds, updates and drops, in order per worker (one publisher,
 *   writes in the source's order). Relayed workers keep their uid.
 * - **Ownership** stays with the target's liveness: the relay's publisher
 *   registers what it relays, so if the relay dies its workers expire as any
 *   dead publisher's do (etcd lease TTL, LAN expiry; on a local target, the
 *   pid check of the `pid` option's process).
 * - **Addresses**: a loopback or wildcard host is replaced by
 *   `advertiseHost`; without it such a worker (and a `unix:` one) is not
 *   relayed, and one `relay-skipped` item says why (not with `sameHost`).
 * - **No loops**: every relayed worker carries `extra[RELAY_MARK]` (the
 *   relay's name); a relay never copies a worker carrying that mark, so
 *   relays in opposite directions between two namespaces never copy back.
 * - **Target down**: a failed write takes the target `'down'`; the relay
 *   keeps following the source and retries with a back-off (on
 *   `scheduler`), re-syncing the target to the source's current state when
 *   it is back: the relay's workers the source no longer has are dropped,
 *   the others written if they differ (no ghosts, no duplicates).
 * - **Authentication**: the relay copies what the source's subscription
 *   lists; a LAN source made with a `signingKey` lists only verified workers.
 *
 * The stream emits plain {@link RelayStatus} objects: `relay-status` (counts,
 * target state, whether the target has caught up with the source),
 * `relay-skipped`, `relay-error`, and the source's and target's
 * diagnostics as `relay-diagnostic`.
 *
 * @example
 * Relay this host's wool workers into an etcd cluster.
 * ```ts
 * import { relayWorkers } from 'woolrx';
 * import { localDiscovery } from 'woolrx/local';
 * import { etcdDiscovery } from 'woolrx/etcd';
 *
 * relayWorkers(localDiscovery('pool'), etcdDiscovery('pool', { endpoints: 'http://10.0.0.5:2379' }), {
 *   advertiseHost: '10.0.0.7',
 * }).subscribe((status) => console.log(JSON.stringify(status)));
 * ```
 *
 * @param source The discovery to copy from (its `watch()` is used), or a
 * stream of its items, e.g. `discovery.watch()` or
 * `discovery.events().pipe(filterWorkers(p))`. A stream without a `synced`
 * item counts as complete once subscribed (true of memory and local).
 * @param target The discovery to copy into.
 * @param options See {@link RelayOptions}.
 * @returns A cold stream of status items; subscribe to run the relay.
 * @throws {TypeError} When `source` is neither a discovery nor an
 * Observable, `target` is not a discovery, or an option is bad (a loopback
 * or wildcard `advertiseHost`, an empty `id`).
 */
export function relayWorkers(
  source: Discovery | Observable<DiscoveryItem> | Observable<DiscoveryEvent>,
  target: Discovery,
  options: RelayOptions = {},
): Observable<RelayStatus> {
  const sourceIsDiscovery = isDiscovery(source);
  if (!sourceIsDiscovery && !isObservable(source)) {
    throw new TypeError(
      `relayWorkers: source must be a Discovery or an Observable of its items, got ${describeValue(source)}`,
    );
  }
  if (!isDiscovery(target)) {
    throw new TypeError(
      'relayWorkers: target must be a Discovery (memoryDiscovery, localDiscovery, lanDiscovery, etcdDiscovery), ' +
        `got ${describeValue(target)}`,
    );
  }
  const read = readOptions('relayWorkers', options, OPTIONS);
  const advertiseHost = read.check(
    'advertiseHost',
    'a host name or IP address',
    (value): value is string => typeof value === 'string' && value.length > 0 && !/[\s/\0]/.test(value),
  );
  if (advertiseHost !== undefined && (isLoopbackHost(advertiseHost) || isWildcardHost(advertiseHost))) {
    read.fail(
      'advertiseHost',
      "this host's address on the network the target spans, not a loopback or wildcard host",
      advertiseHost,
    );
  }
  const sameHost = read.boolean('sameHost', false);
  const pid = read.check(
    'pid',
    'a non-negative 32-bit integer (process.pid)',
    (value): value is number =>
      typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= 2_147_483_647,
  );
  const filter = read.check('filter', 'a function', (value): value is WorkerPredicate => typeof value === 'function');
  const id = read.check(
    'id',
    'a non-empty string',
    (value): value is string => typeof value === 'string' && value.length > 0 && !LONE_SURROGATE.test(value),
  );
  const scheduler =
    read.check(
      'scheduler',
      'a SchedulerLike',
      (value): value is SchedulerLike =>
        typeof value === 'object' && value !== null && typeof (value as SchedulerLike).schedule === 'function',
    ) ?? asyncScheduler;

  return new Observable<RelayStatus>((subscriber) => {
    const run = new RelayRun(subscriber, {
      source: sourceIsDiscovery ? source.watch() : (source as Observable<DiscoveryItem>),
      sourceDiagnostics: sourceIsDiscovery ? source.diagnostics : undefined,
      syncedOnSubscribe: !sourceIsDiscovery,
      target,
      filter,
      form: { id: id ?? randomId(), advertiseHost, sameHost, pid },
      scheduler,
    });
    run.start();
    return () => run.stop();
  });
}
