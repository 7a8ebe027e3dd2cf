import { discoveryEvent } from '../../events/discoveryEvent.js';
import type { DiscoveryEvent, DiscoveryEventType, WorkerSnapshot } from '../../events/types.js';
import { WorkerNotFoundError } from '../../errors/WorkerNotFoundError.js';
import { sameWorker } from '../../model/sameWorker.js';
import type { WorkerInfo } from '../../model/types.js';

/** Where the registry delivers a namespace's events: an RxJS `Subscriber` fits. */
interface Watcher {
  next(event: DiscoveryEvent): void;
  readonly closed: boolean;
}

interface Registration {
  readonly worker: WorkerInfo;
  /** The publisher that last wrote the worker (see {@link MemoryRegistry.publish}). */
  readonly owner: object;
}

interface Space {
  /** uid → registration, in first-registered order. */
  readonly workers: Map<string, Registration>;
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
    return new Map(space === undefined ? [] : [...space.workers].map(([uid, entry]) => [uid, entry.worker]));
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
   * a `worker-added` per current worker, then every change.
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
      for (const { worker } of current) {
        if (watcher.closed) break;
        watcher.next(discoveryEvent('worker-added', worker));
      }
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
   * `WorkerPublisher.publish`. The last publisher to add or update a worker
   * owns it: {@link MemoryRegistry.withdraw} of that publisher drops it,
   * withdrawing an earlier writer does not.
   * @internal Used by {@link memoryDiscovery}'s publishers.
   * @param namespace The namespace.
   * @param owner The publishing publisher.
   * @param type What happened.
   * @param worker A validated worker.
   * @returns The previous owner when another publisher owned the worker.
   * @throws {WorkerNotFoundError} On `worker-updated` of an unregistered uid.
   */
  publish(namespace: string, owner: object, type: DiscoveryEventType, worker: WorkerInfo): object | undefined {
    const existing = this.#spaces.get(namespace)?.workers.get(worker.uid);
    if (type === 'worker-dropped') {
      if (existing === undefined) return undefined;
      const space = this.#space(namespace);
      space.workers.delete(worker.uid);
      this.#enqueue(space, discoveryEvent('worker-dropped', existing.worker));
      this.#prune(namespace, space);
      this.#drain();
      return undefined;
    }
    if (existing === undefined && type === 'worker-updated') throw new WorkerNotFoundError(worker.uid, namespace);
    const space = this.#space(namespace);
    space.workers.set(worker.uid, { worker, owner });
    if (existing === undefined) this.#enqueue(space, discoveryEvent('worker-added', worker));
    else if (!sameWorker(existing.worker, worker)) this.#enqueue(space, discoveryEvent('worker-updated', worker));
    this.#drain();
    return existing !== undefined && existing.owner !== owner ? existing.owner : undefined;
  }

  /**
   * Drops every worker of a namespace that `owner` owns.
   * @internal Used by {@link memoryDiscovery}'s publishers on close.
   * @param namespace The namespace.
   * @param owner The closing publisher.
   */
  withdraw(namespace: string, owner: object): void {
    const space = this.#spaces.get(namespace);
    if (space === undefined) return;
    for (const [uid, entry] of space.workers) {
      if (entry.owner !== owner) continue;
      space.workers.delete(uid);
      this.#enqueue(space, discoveryEvent('worker-dropped', entry.worker));
    }
    this.#prune(namespace, space);
    this.#drain();
  }

  #space(namespace: string): Space {
    let space = this.#spaces.get(namespace);
    if (space === undefined) {
      space = { workers: new Map(), watchers: new Set() };
      this.#spaces.set(namespace, space);
    }
    return space;
  }

  #prune(namespace: string, space: Space): void {
    if (space.workers.size === 0 && space.watchers.size === 0 && this.#spaces.get(namespace) === space) {
      this.#spaces.delete(namespace);
    }
  }

  #enqueue(space: Space, event: DiscoveryEvent): void {
    if (space.watchers.size > 0) this.#queue.push({ space, event, targets: [...space.watchers] });
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
