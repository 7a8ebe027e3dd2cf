import { Subject, timer } from 'rxjs';
import { createDiscovery } from '../../discovery/createDiscovery.js';
import type { Discovery, DiscoveryDiagnostic } from '../../discovery/types.js';
import { describeValue } from '../../model/describeValue.js';
import { expireWorkers } from '../../operators/expireWorkers.js';
import { browseWorkers } from './browseWorkers.js';
import { isWildcardHost } from './isWildcardHost.js';
import { LanPublisher } from './LanPublisher.js';
import { lanServiceType } from './lanServiceType.js';
import type { LanDiscoveryOptions } from './types.js';

const DEFAULT_EXPIRE_AFTER_MS = 30_000;
const DEFAULT_REQUERY_MS = 10_000;
/** How long after subscribing the first query's answers are awaited before the initial state counts as complete. */
const SYNC_WINDOW_MS = 1_000;

function positiveMs(name: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new TypeError(`lanDiscovery: ${name} must be a positive number of milliseconds, got ${describeValue(value)}`);
  }
  return value;
}

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
 *   Unlike the synchronous backends, the current workers arrive as the
 *   network answers (within milliseconds on a LAN), not in one burst.
 * - `publisher()` returns a {@link WorkerPublisher} that is an mDNS
 *   responder for its workers (its socket opens on the first publish). An
 *   update re-announces the records in place (cache-flush), so peers see one
 *   `worker-updated`, never a drop/add pair. `close()` sends goodbyes.
 *   Advertised address: `advertiseHost` when given (a function is called
 *   once per publisher); else the worker's host, a wildcard host being
 *   replaced by the default-route address ({@link AdvertiseHostError} when
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
 * @param namespace The namespace (a non-empty string). Default `'default'`.
 * @param options See {@link LanDiscoveryOptions}.
 * @returns The discovery.
 * @throws {TypeError} On a bad namespace or option, a wildcard `advertiseHost`,
 * or `requeryInterval >= expireAfter`.
 */
export function lanDiscovery(namespace = 'default', options: LanDiscoveryOptions = {}): Discovery {
  if (typeof namespace !== 'string' || namespace.length === 0) {
    throw new TypeError(`lanDiscovery: namespace must be a non-empty string, got ${describeValue(namespace)}`);
  }
  if (options === null || typeof options !== 'object') {
    throw new TypeError(`lanDiscovery: options must be an object, got ${describeValue(options)}`);
  }
  const { advertiseHost, probe = true, unknownUpdate = 'register', port, interface: iface } = options;
  if (advertiseHost !== undefined) {
    if (typeof advertiseHost === 'string') {
      if (isWildcardHost(advertiseHost)) {
        throw new TypeError(
          `lanDiscovery: advertiseHost ${describeValue(advertiseHost)} is a wildcard; give the address peers should connect to`,
        );
      }
    } else if (typeof advertiseHost !== 'function') {
      throw new TypeError(`lanDiscovery: advertiseHost must be a string or a function, got ${describeValue(advertiseHost)}`);
    }
  }
  if (typeof probe !== 'boolean') throw new TypeError(`lanDiscovery: probe must be a boolean, got ${describeValue(probe)}`);
  if (unknownUpdate !== 'register' && unknownUpdate !== 'reject') {
    throw new TypeError(`lanDiscovery: unknownUpdate must be 'register' or 'reject', got ${describeValue(unknownUpdate)}`);
  }
  if (port !== undefined && (!Number.isInteger(port) || port < 1 || port > 65_535)) {
    throw new TypeError(`lanDiscovery: port must be an integer 1-65535, got ${describeValue(port)}`);
  }
  if (iface !== undefined && (typeof iface !== 'string' || iface.length === 0)) {
    throw new TypeError(`lanDiscovery: interface must be an IPv4 address, got ${describeValue(iface)}`);
  }
  const expireAfter = positiveMs('expireAfter', options.expireAfter, DEFAULT_EXPIRE_AFTER_MS);
  const requeryInterval = positiveMs('requeryInterval', options.requeryInterval, Math.min(DEFAULT_REQUERY_MS, expireAfter / 3));
  if (requeryInterval >= expireAfter) {
    throw new TypeError(
      `lanDiscovery: requeryInterval (${requeryInterval} ms) must be below expireAfter (${expireAfter} ms), or live workers would expire between queries`,
    );
  }

  const serviceType = lanServiceType(namespace);
  const diagnostics = new Subject<DiscoveryDiagnostic>();
  const report = (diagnostic: DiscoveryDiagnostic): void => diagnostics.next(diagnostic);
  const sightings = browseWorkers({
    namespace,
    serviceType,
    requeryInterval,
    expireAfter,
    interface: iface,
    port,
    report,
  });
  const workers = sightings.pipe(expireWorkers(expireAfter));

  return createDiscovery({
    namespace,
    watch: (sink) => {
      const subscription = workers.subscribe({ next: (event) => sink.next(event), error: (error) => sink.error(error) });
      subscription.add(timer(SYNC_WINDOW_MS).subscribe(() => sink.synced()));
      return subscription;
    },
    publisher: () =>
      new LanPublisher(namespace, { serviceType, advertiseHost, probe, interface: iface, port, unknownUpdate }, diagnostics),
    diagnostics,
  });
}
