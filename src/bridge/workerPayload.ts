import type { WorkerInfo } from '../model/types.js';
import type { BridgeWorkerPayload } from './types.js';

/**
 * A worker as plain, structured-clone safe data (fresh arrays and objects,
 * nothing frozen, no prototype but Object's). @internal
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
    options: { ...worker.options },
  };
}
