import { PublisherBase } from '../../discovery/PublisherBase.js';
import type { DiscoveryEventType } from '../../events/types.js';
import type { WorkerInfo } from '../../model/types.js';
import type { MemoryRegistry } from './MemoryRegistry.js';

/**
 * The {@link WorkerPublisher} of {@link memoryDiscovery}. Changes are
 * visible to every subscriber of the namespace before `publish` resolves
 * (before it returns, when no earlier operation is pending).
 *
 * Ownership, as on every backend: the publisher that registered a worker
 * owns it; `close()` withdraws exactly the workers this publisher registered
 * that are still registered.
 * @internal Created by {@link memoryDiscovery}; not exported.
 */
export class MemoryPublisher extends PublisherBase {
  readonly #registry: MemoryRegistry;

  /**
   * @param registry Where the workers live.
   * @param namespace The namespace to publish to.
   */
  constructor(registry: MemoryRegistry, namespace: string) {
    super(namespace);
    this.#registry = registry;
  }

  protected override apply(type: DiscoveryEventType, worker: WorkerInfo): void {
    this.#registry.publish(this.namespace, this, type, worker);
  }

  protected override shutdown(): void {
    this.#registry.withdraw(this.namespace, this);
  }
}
