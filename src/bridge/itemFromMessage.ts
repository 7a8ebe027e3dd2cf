import { discoveryEvent, SYNCED } from '../events/discoveryEvent.js';
import type { DiscoveryItem } from '../events/types.js';
import { workerInfo } from '../model/workerInfo.js';
import type { BridgeMessage } from './types.js';

/**
 * What a `next` or `synced` message from the owner stands for, rebuilt as
 * the validated, frozen value a local subscriber would get; `undefined`
 * for any other message. @internal
 *
 * @example
 * itemFromMessage({ woolrxBridge: 'woolrx', kind: 'synced', id }); // { type: 'synced' }
 *
 * @param message A message of one subscription.
 * @returns The item, or `undefined`.
 * @throws {TypeError} Naming a bad event type or worker field.
 */
export function itemFromMessage(message: BridgeMessage): DiscoveryItem | undefined {
  if (message.kind === 'synced') return SYNCED;
  if (message.kind !== 'next') return undefined;
  return discoveryEvent(message.type, workerInfo(message.worker), message.reason);
}
