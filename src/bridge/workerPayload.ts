import { DEFAULT_CHANNEL_OPTIONS } from '../model/DEFAULT_CHANNEL_OPTIONS.js';
import type { ChannelOptions, WorkerInfo } from '../model/types.js';
import { workerInfo } from '../model/workerInfo.js';
import type { BridgeWorkerPayload } from './types.js';

const OPTION_KEYS = Object.keys(DEFAULT_CHANNEL_OPTIONS) as (keyof ChannelOptions)[];

/**
 * A worker as plain, structured-clone safe data (fresh arrays and objects,
 * nothing frozen, no prototype but Object's), its fields and options in a
 * fixed order whatever object it was given (`woolrx watch --json` prints it
 * as it is). The worker is checked first (`workerInfo`: a lookup for one it
 * made), so what crosses a port is valid or not sent at all. @internal
 *
 * @example
 * port.postMessage({ …, worker: workerPayload(event.worker) });
 *
 * @param given The worker.
 * @throws {TypeError} Naming the bad field of a worker that is not valid.
 */
export function workerPayload(given: WorkerInfo): BridgeWorkerPayload {
  const worker = workerInfo(given);
  return {
    uid: worker.uid,
    address: worker.address,
    pid: worker.pid,
    version: worker.version,
    tags: [...worker.tags],
    extra: { ...worker.extra },
    secure: worker.secure,
    options: Object.fromEntries(OPTION_KEYS.map((key) => [key, worker.options[key]])),
  };
}
