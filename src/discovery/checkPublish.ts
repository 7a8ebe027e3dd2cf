import { isDiscoveryEventType } from '../events/isDiscoveryEventType.js';
import { PublisherClosedError } from '../errors/PublisherClosedError.js';
import { describeValue } from '../model/describeValue.js';
import type { WorkerInfo } from '../model/types.js';
import { workerInfo } from '../model/workerInfo.js';

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
export function checkPublish(namespace: string, closed: boolean, type: unknown, worker: WorkerInfo): WorkerInfo {
  if (!isDiscoveryEventType(type)) {
    throw new TypeError(
      `publish: invalid event type ${describeValue(type)} (expected worker-added, worker-updated or worker-dropped)`,
    );
  }
  const checked = workerInfo(worker);
  if (closed) throw new PublisherClosedError(namespace);
  return checked;
}
