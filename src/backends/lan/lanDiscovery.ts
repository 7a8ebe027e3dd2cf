import { Subject } from 'rxjs';
import { createDiscovery } from '../../discovery/createDiscovery.js';
import { readNamespace, readOptions } from '../../discovery/readOptions.js';
import type { Discovery, DiscoveryDiagnostic } from '../../discovery/types.js';
import type { DiscoveryEvent } from '../../events/types.js';
import { discoveryEvent } from '../../events/discoveryEvent.js';
import { expireWorkers } from '../../operators/expireWorkers.js';
import { browseWorkers } from './browseWorkers.js';
import { isWildcardHost } from '../../model/isWildcardHost.js';
import { LanPublisher } from './LanPublisher.js';
import { readSigningKeys } from './lanSigning.js';
import { lanServiceType } from './lanServiceType.js';
import type { AdvertiseHost, LanDiscoveryOptions } from './types.js';

const OPTIONS = [
  'advertiseHost',
  'probe',
  'requeryInterval',
  'expireAfter',
  'syncWindow',
  'interface',
  'port',
  'unknownUpdate',
  'signingKey',
] as const;
const DEFAULT_EXPIRE_AFTER_MS = 30_000;
const DEFAULT_REQUERY_MS = 10_000;
const DEFAULT_SYNC_WINDOW_MS = 1_000;
/** The longest delay a timer takes (2^31 - 1 ms, about 24.8 days). */
const MAX_DELAY_MS = 2_147_483_647;

/**
 * Worker discovery on the local network over mDNS / DNS-SD, wire-compatible
 * with wool's LAN discovery: service type `_wool-<md5 6 hex>._tcp.local.`
 * ({@link lanServiceType}), instance name = worker uid, SRV port, A/AAAA
 * address, TXT `pid`/`version`/`tags`/`extra`/`secure`.
 *
 * - `events(filter?)` is cold: each subscription opens its own mDNS socket,
 *   queries for the service type (at once, after 1 s, then every
 *   `requeryInterval`), resolves what arrives incomplete, and emits
 *   `worker-added` / `worker-updated` / `worker-dropped`. A goodbye drops a
 *   worker at once; a worker that stops answering (its host died) is
 *   dropped `expireAfter` ms after it was last seen. Records that are not a
 *   worker (no pid or version, bad JSON) are skipped and reported on
 *   `diagnostics`. A socket failure errors the stream with a
 *   {@link LanSocketError}. Unsubscribing closes the socket and timers.
 * - Initial state: unlike the synchronous backends, the current workers
 *   arrive as the network answers (within milliseconds on a LAN), not in one
 *   burst. mDNS cannot know that no more answers will come, so the initial
 *   state counts as complete `syncWindow` ms after the first query was sent
 *   (longer, up to twice that, while a worker that answered is still being
 *   resolved): `snapshots()` emits its first snapshot then (empty when
 *   nobody answered).
 * - `publisher()` returns a `WorkerPublisher` (see `woolrx`) that is the mDNS
 *   responder of its own workers (its socket opens on the first publish). An
 *   update re-announces the records in place (cache-flush), so peers see one
 *   `worker-updated`, never a drop/add pair. `close()` sends goodbyes. It can
 *   update or drop only workers it registered: `worker-updated` of another
 *   uid rejects with `WorkerNotFoundError` (`unknownUpdate: 'register'`
 *   registers it instead, as wool does), `worker-dropped` of one is a no-op.
 *   Advertised address: `advertiseHost` when given (a function is called
 *   once per publisher); else the worker's host, a wildcard host being
 *   replaced by the default-route address, found once per publisher ({@link AdvertiseHostError} when
 *   there is none) and a loopback host reported as a `warning` diagnostic.
 *
 * @example
 * ```ts
 * import { lanDiscovery } from 'woolrx/lan';
 *
 * const discovery = lanDiscovery('my-pool', { advertiseHost: '192.168.1.20' });
 * discovery.events().subscribe((event) => console.log(event.type, event.worker.address));
 * await using publisher = discovery.publisher();
 * await publisher.publish('worker-added', worker);
 * ```
 *
 * - `signingKey` authenticates the records (see
 *   {@link LanDiscoveryOptions.signingKey} and docs/backends/lan.md): a
 *   publisher signs each worker's record, a subscriber lists only workers
 *   whose signature verifies, and skips the others with an
 *   `unauthenticated-record` diagnostic.
 *
 * @param namespace The namespace: a non-empty string without `/`, `..` or
 * NUL, at most 250 UTF-8 bytes (the same on every backend). Default `'default'`.
 * @param options See {@link LanDiscoveryOptions}.
 * @returns The discovery.
 * @throws {TypeError} On a bad namespace, an unknown or bad option, a
 * wildcard `advertiseHost`, `requeryInterval >= expireAfter`, or a
 * `signingKey` breaking the key rule (the message states the rule, never the key).
 */
export function lanDiscovery(namespace?: string, options: LanDiscoveryOptions = {}): Discovery {
  namespace = readNamespace('lanDiscovery', namespace);
  const read = readOptions('lanDiscovery', options, OPTIONS);
  const advertiseHost = read.check(
    'advertiseHost',
    'a string or a function',
    (value): value is AdvertiseHost => typeof value === 'string' || typeof value === 'function',
  );
  if (typeof advertiseHost === 'string' && isWildcardHost(advertiseHost)) {
    read.fail('advertiseHost', 'the address peers should connect to, not a wildcard', advertiseHost);
  }
  const probe = read.boolean('probe', true);
  const unknownUpdate = read.oneOf('unknownUpdate', ['reject', 'register'], 'reject');
  const port = read.integer('port', 5353, 1, 65_535);
  const iface = read.check(
    'interface',
    'an IPv4 address',
    (value): value is string => typeof value === 'string' && value.length > 0,
  );
  const expireAfter = read.number('expireAfter', DEFAULT_EXPIRE_AFTER_MS, 0, MAX_DELAY_MS, true);
  const requeryInterval = read.number(
    'requeryInterval',
    Math.min(DEFAULT_REQUERY_MS, expireAfter / 3),
    0,
    MAX_DELAY_MS,
    true,
  );
  if (requeryInterval >= expireAfter) {
    read.fail(
      'requeryInterval',
      `below expireAfter (${expireAfter} ms), or live workers would expire between queries`,
      requeryInterval,
    );
  }
  const syncWindow = read.number('syncWindow', DEFAULT_SYNC_WINDOW_MS, 0, MAX_DELAY_MS, true);
  const keys = readSigningKeys(options.signingKey);

  const serviceType = lanServiceType(namespace);
  const diagnostics = new Subject<DiscoveryDiagnostic>();
  const report = (diagnostic: DiscoveryDiagnostic): void => diagnostics.next(diagnostic);

  return createDiscovery({
    namespace,
    watch: (sink) => {
      // Sightings pass through expiry on their way to the sink; the end of
      // the initial state and a failure go to the sink directly.
      const sightings = new Subject<DiscoveryEvent>();
      const expiry = sightings.pipe(expireWorkers(expireAfter)).subscribe({
        // Every drop browseWorkers makes has its reason (a goodbye, a record
        // turned malformed): one without is expireWorkers' own, an expiry.
        next: (event) =>
          sink.next(
            event.type === 'worker-dropped' && event.reason === undefined
              ? discoveryEvent('worker-dropped', event.worker, 'expired')
              : event,
          ),
        error: (error: unknown) => sink.error(error),
      });
      const browse = browseWorkers(
        { namespace, serviceType, requeryInterval, expireAfter, interface: iface, port, report, syncWindow, keys },
        {
          next: (sighting) => sightings.next(sighting),
          synced: () => sink.synced(),
          error: (error) => sink.error(error),
          get closed() {
            return sink.closed;
          },
        },
      );
      return () => {
        browse();
        expiry.unsubscribe();
      };
    },
    publisher: () =>
      new LanPublisher(
        namespace,
        { serviceType, advertiseHost, probe, interface: iface, port, unknownUpdate, keys },
        diagnostics,
      ),
    diagnostics,
  });
}
