import type { DiscoveryEvent } from '../events/types.js';
import { describeValue } from '../model/describeValue.js';
import type { WorkerInfo } from '../model/types.js';

/**
 * The worker of an event an operator received, checked: the one place the
 * operators reject an event without a worker uid (a hand-made or foreign
 * object), with the same `TypeError` text.
 * @internal
 * @param operator The operator's name, for the message.
 * @param event What the source emitted.
 * @returns The event's worker.
 * @throws {TypeError} Naming the event, when it has no worker with a string uid.
 */
export function eventWorker(operator: string, event: DiscoveryEvent): WorkerInfo {
  const worker = event?.worker as WorkerInfo | null | undefined;
  if (worker === null || typeof worker !== 'object' || typeof worker.uid !== 'string') {
    throw new TypeError(`${operator}: event has no worker uid: ${describeValue(event)}`);
  }
  return worker;
}
