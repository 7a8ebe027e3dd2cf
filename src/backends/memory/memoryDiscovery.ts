import { Subject } from 'rxjs';
import { createDiscovery } from '../../discovery/createDiscovery.js';
import { readNamespace, readOptions } from '../../discovery/readOptions.js';
import type { Discovery, DiscoveryDiagnostic } from '../../discovery/types.js';
import { MemoryPublisher } from './MemoryPublisher.js';
import { MemoryRegistry } from './MemoryRegistry.js';

/** Options of {@link memoryDiscovery}. */
export interface MemoryDiscoveryOptions {
  /**
   * The store to use. Defaults to {@link MemoryRegistry.default}, shared by
   * every `memoryDiscovery()` of this JavaScript realm; pass a
   * `new MemoryRegistry()` for an isolated world.
   */
  readonly registry?: MemoryRegistry | undefined;
}

/**
 * An in-process discovery backend: workers published in a namespace are seen
 * by every subscriber of that namespace in the same JavaScript realm (page,
 * worker thread, Node process) that uses the same registry.
 *
 * Implements the {@link Discovery} contract that every woolrx backend
 * follows, synchronously:
 *
 * - `events(filter?)` is cold. On subscribe it emits, synchronously and in
 *   one burst, a `worker-added` for every current worker (in registration
 *   order), then each change as it is published. `snapshots()` emits the
 *   initial state synchronously-complete: its first snapshot comes one
 *   microtask after `subscribe()`. Unsubscribing releases the
 *   subscription's listener; a namespace with neither workers nor
 *   subscribers leaves nothing behind in the registry. With `filter`, the
 *   stream is piped through {@link filterWorkers} (a worker that starts
 *   passing is added, one that stops passing is dropped).
 * - `publisher()` returns a new publisher. `publish` delivers the change to
 *   every subscriber before its promise resolves. `worker-added` of a
 *   registered uid is one `worker-updated` (nothing when unchanged);
 *   `worker-updated` of an unknown uid rejects with
 *   {@link WorkerNotFoundError}; `worker-dropped` of an unknown uid does
 *   nothing; anything after `close()` rejects with
 *   {@link PublisherClosedError}; bad arguments reject with a `TypeError`.
 * - Ownership: the publisher that registered a worker (added it while it
 *   was absent) owns it; updating or re-adding it from another publisher
 *   does not change that. `close()` (or `await using`) withdraws exactly the
 *   workers its publisher owns that are still registered, each seen as
 *   `worker-dropped`.
 * - `diagnostics` is hot: only what happens while subscribed is seen.
 *
 * Subscribers may publish, subscribe or unsubscribe from inside their
 * callbacks: changes are queued, so each subscriber sees them in the order
 * they were made.
 *
 * @example
 * ```ts
 * import { memoryDiscovery, workerInfo } from 'woolrx';
 *
 * const discovery = memoryDiscovery('jobs');
 * discovery.events().subscribe((event) => console.log(event.type, event.worker.address));
 *
 * await using publisher = discovery.publisher();
 * const worker = workerInfo({ uid: crypto.randomUUID(), address: '127.0.0.1:50051', pid: 1, version: '1.0.0' });
 * await publisher.publish('worker-added', worker); // logs: worker-added 127.0.0.1:50051
 * // Leaving the block closes the publisher: logs worker-dropped 127.0.0.1:50051
 * ```
 *
 * @param namespace The namespace: a non-empty string without `/`, `..` or
 * NUL, at most 250 UTF-8 bytes (the same on every backend). Default `'default'`.
 * @param options The registry to use.
 * @returns The discovery.
 * @throws {TypeError} On a bad namespace, when `options`
 * has an unknown key, or `options.registry` is not a {@link MemoryRegistry}.
 */
export function memoryDiscovery(namespace?: string, options: MemoryDiscoveryOptions = {}): Discovery {
  namespace = readNamespace('memoryDiscovery', namespace);
  const read = readOptions('memoryDiscovery', options, ['registry']);
  const registry =
    read.check('registry', 'a MemoryRegistry', (value): value is MemoryRegistry => value instanceof MemoryRegistry) ??
    MemoryRegistry.default;
  return createDiscovery({
    namespace,
    watch: (sink) => registry.watch(namespace, sink),
    publisher: () => new MemoryPublisher(registry, namespace),
    diagnostics: new Subject<DiscoveryDiagnostic>(),
  });
}
