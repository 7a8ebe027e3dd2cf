import { DEFAULT_CHANNEL_OPTIONS } from '../model/DEFAULT_CHANNEL_OPTIONS.js';
import type { ChannelOptions, WorkerInfo } from '../model/types.js';
import type { BridgeWorkerPayload } from './types.js';

const OPTION_KEYS = Object.keys(DEFAULT_CHANNEL_OPTIONS) as (keyof ChannelOptions)[];

/**
 * A worker as plain, structured-clone safe data (fresh arrays and objects,
 * nothing frozen, no prototype but Object's), its fields and options in a
 * fixed order whatever object it was given (`woolrx watch --json` prints it
 * as it is). @internal
 *
 * @param worker The worker.
 * @returns The payload.
 */
export function workerPayload(worker: WorkerInfo): BridgeWorkerPayload {
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
