import { PublisherClosedError } from '../errors/PublisherClosedError.js';
import { isDiscoveryEventType } from '../events/isDiscoveryEventType.js';
import type { DiscoveryEventType } from '../events/types.js';
import { describeValue } from '../model/describeValue.js';
import type { WorkerInfo } from '../model/types.js';
import { workerInfo } from '../model/workerInfo.js';
import { toError } from './errorMessage.js';
import type { WorkerPublisher } from './types.js';

/**
 * The argument checks every backend's `WorkerPublisher.publish` starts with,
 * so bad input gets the same typed error on every backend: the event type,
 * then the worker (re-validated, so a hand-made or structured-cloned object
 * becomes a frozen `WorkerInfo`), then whether the publisher is closed.
 * @internal
 * @param namespace The publisher's namespace (named by the closed error).
 * @param closed Whether the publisher has been closed.
 * @param type The event type given to `publish`.
 * @param worker The worker given to `publish`.
 * @returns The validated worker.
 * @throws {TypeError} Naming a bad type or worker field.
 * @throws {PublisherClosedError} When the publisher is closed.
 */
function checkPublish(namespace: string, closed: boolean, type: unknown, worker: WorkerInfo): WorkerInfo {
  if (!isDiscoveryEventType(type)) {
    throw new TypeError(
      `publish: invalid event type ${describeValue(type)} (expected worker-added, worker-updated or worker-dropped)`,
    );
  }
  const checked = workerInfo(worker);
  if (closed) throw new PublisherClosedError(namespace);
  return checked;
}

/**
 * The plumbing every backend's {@link WorkerPublisher} shares, so that a
 * backend writes only how to apply one change ({@link PublisherBase.apply})
 * and how to shut down ({@link PublisherBase.shutdown}):
 *
 * - `publish` checks its arguments and the closed state with
 *   `checkPublish` (bad input rejects with a `TypeError` and changes
 *   nothing; after `close()` it rejects with `PublisherClosedError`);
 * - operations run one at a time, in call order (a serial queue); an
 *   operation that fails rejects its own promise only;
 * - `close()` marks the publisher closed at once, runs `shutdown()` after
 *   every pending operation, and returns the same promise on every call;
 * - `Symbol.asyncDispose` is `close()`;
 * - every failure, synchronous or not, is a rejection, never a throw.
 *
 * When no operation is pending, `apply` starts synchronously inside
 * `publish` (a synchronous backend such as memory has delivered the change
 * before `publish` returns); otherwise it waits its turn.
 * @internal Extended by each backend's publisher.
 */
export abstract class PublisherBase implements WorkerPublisher {
  /** The namespace this publisher writes to. */
  readonly namespace: string;
  #closed = false;
  #closing: Promise<void> | undefined;
  #tail: Promise<unknown> = Promise.resolve();
  #pending = 0;

  /** @param namespace The namespace this publisher writes to. */
  constructor(namespace: string) {
    this.namespace = namespace;
  }

  /** `true` once `close()` has been called. */
  get closed(): boolean {
    return this.#closed;
  }

  /**
   * Publishes one change; see {@link WorkerPublisher.publish}.
   * @param type What happened to the worker.
   * @param worker The worker's metadata (re-validated).
   * @returns Resolves once the backend has applied the change.
   */
  publish(type: DiscoveryEventType, worker: WorkerInfo): Promise<void> {
    let valid: WorkerInfo;
    try {
      valid = checkPublish(this.namespace, this.#closed, type, worker);
    } catch (error: unknown) {
      return Promise.reject(toError(error));
    }
    return this.#serially(() => this.apply(type, valid));
  }

  /**
   * Withdraws what this publisher owns (the backend's `shutdown`) after
   * every pending operation, then closes it. Idempotent: every call returns
   * the same promise.
   * @returns Resolves once shut down.
   */
  close(): Promise<void> {
    this.#closed = true;
    this.#closing ??= this.#serially(() => this.shutdown());
    return this.#closing;
  }

  /**
   * Same as `close()`, for `await using`.
   * @returns Resolves once shut down.
   */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  /**
   * Applies one checked change to the backend. Runs alone: never while
   * another `apply` or `shutdown` of this publisher is running.
   * @param type What happened to the worker.
   * @param worker The validated worker.
   */
  protected abstract apply(type: DiscoveryEventType, worker: WorkerInfo): void | Promise<void>;

  /**
   * Withdraws every worker this publisher owns that is still registered, and
   * releases the backend's resources. Runs once, after every pending `apply`.
   */
  protected abstract shutdown(): void | Promise<void>;

  #serially(task: () => void | Promise<void>): Promise<void> {
    const run = (): Promise<void> => {
      try {
        return Promise.resolve(task());
      } catch (error: unknown) {
        return Promise.reject(toError(error));
      }
    };
    // Nothing pending: start now, so a synchronous backend has applied the
    // change before publish() returns. Otherwise wait for the tail.
    const result = this.#pending === 0 ? run() : this.#tail.then(run);
    this.#pending++;
    const settled = result.then(
      () => {
        this.#pending--;
      },
      () => {
        this.#pending--;
      },
    );
    this.#tail = settled;
    return result;
  }
}
