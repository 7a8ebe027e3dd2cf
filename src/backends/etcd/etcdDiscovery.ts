import { Subject } from 'rxjs';
import { createDiscovery } from '../../discovery/createDiscovery.js';
import type { Discovery, DiscoveryDiagnostic } from '../../discovery/types.js';
import { EtcdConnection } from './EtcdConnection.js';
import { EtcdPublisher } from './EtcdPublisher.js';
import { EtcdWatch } from './EtcdWatch.js';
import { etcdSettings } from './etcdSettings.js';
import type { EtcdDiscoveryOptions } from './types.js';

/**
 * Discovery over an etcd (v3) cluster, for pools that span hosts and
 * networks: workers are keys `<prefix>/<namespace>/workers/<uid>` holding
 * their protobuf metadata (the core codec), each attached to the lease of
 * the publisher that registered it.
 *
 * - `events(filter?)` is cold. Each subscription reads the namespace at a
 *   revision R and emits `worker-added` for every worker in one synchronous
 *   burst (its initial state: `snapshots()` emits it right after), then
 *   watches from R+1: changes arrive in etcd's order, with no gap and no
 *   duplicate. A broken stream resumes from the last delivered revision + 1
 *   on any endpoint that answers; if that revision was compacted, the
 *   namespace is read again and only the differences to what the
 *   subscription already reported are emitted. A record that does not
 *   decode is skipped and reported on `diagnostics`. Unsubscribing closes
 *   the watch and, with the last user, the client.
 * - `publisher()` returns a publisher with one lease, kept alive every
 *   `ttl / 3`. A worker belongs to the publisher that registered it (its key
 *   carries that publisher's lease; another publisher's update or re-add
 *   keeps the lease). Its workers vanish when it closes (the lease is
 *   revoked) or `ttl` seconds after it dies without closing (the lease
 *   expires). A lost lease is re-granted and its workers restored.
 * - `diagnostics` is hot: skipped records, reconnections, lease losses and
 *   recoveries.
 *
 * Node only (gRPC). See docs/backends/etcd.md for the guarantees and for
 * choosing `ttl`.
 *
 * @example
 * import { etcdDiscovery } from 'woolrx/etcd';
 *
 * const discovery = etcdDiscovery('jobs', { endpoints: 'http://10.0.0.5:2379,http://10.0.0.6:2379' });
 * discovery.events().subscribe((event) => console.log(event.type, event.worker.address));
 *
 * await using publisher = discovery.publisher();
 * await publisher.publish('worker-added', worker);
 *
 * @param namespace The namespace: a non-empty string without `/`, `..` or
 * NUL, at most 250 UTF-8 bytes (the same on every backend). Default `'default'`.
 * @param options Endpoints, lease TTL (seconds), key prefix, TLS, auth.
 * @returns The discovery. Nothing connects until a subscription or a publish.
 * @throws {TypeError} Naming a bad namespace or a bad option.
 */
export function etcdDiscovery(namespace?: string, options: EtcdDiscoveryOptions = {}): Discovery {
  const settings = etcdSettings(namespace, options);
  const connection = new EtcdConnection(settings);
  const diagnostics = new Subject<DiscoveryDiagnostic>();

  const discovery = createDiscovery({
    namespace: settings.namespace,
    watch: (sink) => {
      const subscription = new EtcdWatch(settings, connection, diagnostics, sink);
      subscription.start();
      return () => subscription.stop();
    },
    publisher: () => new EtcdPublisher(settings, connection, diagnostics),
    diagnostics,
  });
  EtcdConnection.register(discovery, connection);
  return discovery;
}
