import { checkPublish } from '../../discovery/checkPublish.js';
import type { Subject } from 'rxjs';
import type { DiscoveryDiagnostic, WorkerPublisher } from '../../discovery/types.js';
import type { DiscoveryEventType } from '../../events/types.js';
import type { WorkerInfo } from '../../model/types.js';
import type { MemoryRegistry } from './MemoryRegistry.js';


/**
 * The {@link WorkerPublisher} of {@link memoryDiscovery}. Changes are
 * visible to every subscriber of the namespace before `publish` resolves.
 *
 * Ownership: the publisher that last added or updated a worker owns it, and
 * `close()` withdraws exactly the workers this publisher owns. When a
 * publisher takes over a worker another one owned, a `warning` diagnostic
 * says so.
 * @internal Created by {@link memoryDiscovery}; not exported.
 */
export class MemoryPublisher implements WorkerPublisher {
  readonly namespace: string;
  readonly #registry: MemoryRegistry;
  readonly #diagnostics: Subject<DiscoveryDiagnostic>;
  #closed = false;

  /**
   * @param registry Where the workers live.
   * @param namespace The namespace to publish to.
   * @param diagnostics Where to report ownership take-overs.
   */
  constructor(registry: MemoryRegistry, namespace: string, diagnostics: Subject<DiscoveryDiagnostic>) {
    this.#registry = registry;
    this.namespace = namespace;
    this.#diagnostics = diagnostics;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /**
   * Publishes one change (see {@link WorkerPublisher.publish}).
   * @param type What happened to the worker.
   * @param worker The worker's metadata; re-validated, so a look-alike
   * object is accepted only if it is valid worker metadata.
   * @returns Resolves once every subscriber has seen the change.
   * @throws {TypeError} (as a rejection) On a bad type or worker.
   * @throws {WorkerNotFoundError} (as a rejection) On `worker-updated` of an unregistered uid.
   * @throws {PublisherClosedError} (as a rejection) After `close()`.
   */
  publish(type: DiscoveryEventType, worker: WorkerInfo): Promise<void> {
    try {
      const checked = checkPublish(this.namespace, this.#closed, type, worker);
      const previousOwner = this.#registry.publish(this.namespace, this, type, checked);
      if (previousOwner !== undefined) {
        this.#diagnostics.next({
          kind: 'warning',
          namespace: this.namespace,
          uid: checked.uid,
          message: `Worker ${checked.uid} was published by another publisher; this publisher owns it now and withdraws it on close`,
        });
      }
      return Promise.resolve();
    } catch (error: unknown) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
  }

  /** Withdraws every worker this publisher owns, then closes it. Idempotent. */
  close(): Promise<void> {
    if (!this.#closed) {
      this.#closed = true;
      this.#registry.withdraw(this.namespace, this);
    }
    return Promise.resolve();
  }

  /** Same as {@link MemoryPublisher.close}, for `await using`. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}
