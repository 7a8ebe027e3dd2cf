import type { DiscoverySink } from '../../discovery/DiscoverySink.js';
import { WorkerLedger } from '../../events/WorkerLedger.js';
import { discoveryEvent } from '../../events/discoveryEvent.js';
import type { DiscoveryEvent, DiscoveryEventType, WorkerSnapshot } from '../../events/types.js';
import { WorkerNotFoundError } from '../../errors/WorkerNotFoundError.js';
import type { WorkerInfo } from '../../model/types.js';

/** Where the registry delivers a namespace's events. */
type Watcher = Pick<DiscoverySink, 'next' | 'synced' | 'closed'>;

interface Space {
  /** The registered workers, in first-registered order. */
  readonly workers: WorkerLedger;
  /** uid → the publisher that registered it (see {@link MemoryRegistry.publish}). */
  readonly owners: Map<string, object>;
  readonly watchers: Set<Watcher>;
}

interface Delivery {
  readonly space: Space;
  readonly event: DiscoveryEvent;
  /** The watchers present when the change was made: later ones see it in their initial burst. */
  readonly targets: readonly Watcher[];
}

let defaultRegistry: MemoryRegistry | undefined;

/**
 * The in-process store behind {@link memoryDiscovery}: namespaces of
 * workers, and the subscriptions watching them.
 *
 * Every `memoryDiscovery()` without a `registry` option shares
 * {@link MemoryRegistry.default}, so two discoveries of the same namespace in
 * one JavaScript realm see each other. Pass your own `new MemoryRegistry()`
 * to get an isolated world (tests, sandboxes).
 *
 * A namespace exists only while it holds a worker or a subscription: the
 * registry keeps no entry for a namespace that has neither, so unique
 * namespaces never leak memory.
 *
 * Changes are delivered through one queue per registry, so every subscriber
 * sees a namespace's changes in the order they were made, even when a
 * subscriber publishes, subscribes or unsubscribes from inside a callback.
 *
 * @example
 * Two isolated in-memory worlds.
 * ```ts
 * import { memoryDiscovery, MemoryRegistry } from 'woolrx';
 *
 * const registry = new MemoryRegistry();
 * const discovery = memoryDiscovery('jobs', { registry });
 * // memoryDiscovery('jobs') (the default registry) does not see these workers.
 * console.log(registry.namespaces, registry.workers('jobs').size);
 * ```
 */
export class MemoryRegistry {
  readonly #spaces = new Map<string, Space>();
  readonly #queue: Delivery[] = [];
  #draining = false;

  /** The registry every {@link memoryDiscovery} uses unless given another. */
  static get default(): MemoryRegistry {
    return (defaultRegistry ??= new MemoryRegistry());
  }

  /** The namespaces currently holding workers or subscriptions. */
  get namespaces(): readonly string[] {
    return [...this.#spaces.keys()];
  }

  /**
   * The workers currently registered in a namespace.
   * @param namespace The namespace.
   * @returns A fresh map of uid to worker, in registration order.
   */
  workers(namespace: string): WorkerSnapshot {
    const space = this.#spaces.get(namespace);
    return new Map(space === undefined ? [] : [...space.workers.values()].map((worker) => [worker.uid, worker]));
  }

  /**
   * The number of live subscriptions watching a namespace.
   * @param namespace The namespace.
   * @returns The count; `0` once every subscription has ended.
   */
  watcherCount(namespace: string): number {
    return this.#spaces.get(namespace)?.watchers.size ?? 0;
  }

  /**
   * Starts delivering a namespace's events to `watcher`: first, synchronously,
   * a `worker-added` per current worker and `synced()`, then every change.
   * @internal Used by {@link memoryDiscovery}.
   * @param namespace The namespace.
   * @param watcher Receives the events; skipped once `closed`.
   * @returns Stops the delivery and forgets the watcher.
   */
  watch(namespace: string, watcher: Watcher): () => void {
    const space = this.#space(namespace);
    space.watchers.add(watcher);
    const current = [...space.workers.values()];
    // Changes made by the watcher's own callbacks during the burst are queued
    // (it is a target already) and delivered after the burst, in order.
    const outermost = !this.#draining;
    this.#draining = true;
    try {
      for (const worker of current) {
        if (watcher.closed) break;
        watcher.next(discoveryEvent('worker-added', worker));
      }
      if (!watcher.closed) watcher.synced();
    } finally {
      if (outermost) this.#draining = false;
    }
    if (outermost) this.#drain();
    let watching = true;
    return () => {
      if (!watching) return;
      watching = false;
      space.watchers.delete(watcher);
      this.#prune(namespace, space);
    };
  }

  /**
   * Applies one published change, with the semantics of
   * `WorkerPublisher.publish`. A worker belongs to the publisher that
   * registered it (added it while it was absent); updating or re-adding it
   * from another publisher changes its metadata, not its owner.
   * @internal Used by {@link memoryDiscovery}'s publishers.
   * @param namespace The namespace.
   * @param owner The publishing publisher.
   * @param type What happened.
   * @param worker A validated worker.
   * @throws {WorkerNotFoundError} On `worker-updated` of an unregistered uid.
   */
  publish(namespace: string, owner: object, type: DiscoveryEventType, worker: WorkerInfo): void {
    const known = this.#spaces.get(namespace)?.workers.has(worker.uid) ?? false;
    if (type === 'worker-dropped') {
      if (!known) return;
      const space = this.#space(namespace);
      space.owners.delete(worker.uid);
      this.#enqueue(space, space.workers.drop(worker.uid, 'withdrawn'));
      this.#prune(namespace, space);
      this.#drain();
      return;
    }
    if (!known && type === 'worker-updated') throw new WorkerNotFoundError(worker.uid, namespace);
    const space = this.#space(namespace);
    if (!known) space.owners.set(worker.uid, owner);
    this.#enqueue(space, space.workers.put(worker));
    this.#drain();
  }

  /**
   * Drops every worker of a namespace that `owner` registered and that is
   * still registered.
   * @internal Used by {@link memoryDiscovery}'s publishers on close.
   * @param namespace The namespace.
   * @param owner The closing publisher.
   */
  withdraw(namespace: string, owner: object): void {
    const space = this.#spaces.get(namespace);
    if (space === undefined) return;
    for (const [uid, registeredBy] of space.owners) {
      if (registeredBy !== owner) continue;
      space.owners.delete(uid);
      this.#enqueue(space, space.workers.drop(uid, 'withdrawn'));
    }
    this.#prune(namespace, space);
    this.#drain();
  }

  #space(namespace: string): Space {
    let space = this.#spaces.get(namespace);
    if (space === undefined) {
      space = { workers: new WorkerLedger(), owners: new Map(), watchers: new Set() };
      this.#spaces.set(namespace, space);
    }
    return space;
  }

  #prune(namespace: string, space: Space): void {
    if (space.workers.size === 0 && space.watchers.size === 0 && this.#spaces.get(namespace) === space) {
      this.#spaces.delete(namespace);
    }
  }

  #enqueue(space: Space, event: DiscoveryEvent | undefined): void {
    if (event !== undefined && space.watchers.size > 0)
      this.#queue.push({ space, event, targets: [...space.watchers] });
  }

  // Delivers queued events in order; a nested call (a change made from
  // inside a callback) only enqueues, the outermost loop delivers.
  #drain(): void {
    if (this.#draining) return;
    this.#draining = true;
    try {
      for (let delivery = this.#queue.shift(); delivery !== undefined; delivery = this.#queue.shift()) {
        for (const target of delivery.targets) {
          if (!target.closed && delivery.space.watchers.has(target)) target.next(delivery.event);
        }
      }
    } finally {
      this.#draining = false;
    }
  }
}
