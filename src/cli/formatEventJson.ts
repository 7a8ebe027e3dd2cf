import { workerPayload } from '../bridge/workerPayload.js';
import type { BridgeWorkerPayload } from '../bridge/types.js';
import type { DiscoveryEvent } from '../events/types.js';
import { DEFAULT_CHANNEL_OPTIONS } from '../model/DEFAULT_CHANNEL_OPTIONS.js';
import type { WorkerInfo } from '../model/types.js';

/**
 * A worker as `woolrx watch --json` and `woolrx list --json` print it:
 * fields in a fixed order, and `options` only with the gRPC channel options
 * that differ from wool's defaults ({@link DEFAULT_CHANNEL_OPTIONS}) — none
 * at all when every one is the default — unless `full` asks for all of them.
 *
 * @param full Print every channel option.
 * @returns Plain data for `JSON.stringify`.
 */
export function workerJson(worker: WorkerInfo, full = false): Partial<BridgeWorkerPayload> {
  const payload = workerPayload(worker);
  if (full) return payload;
  const { options, ...rest } = payload;
  const changed = Object.entries(options).filter(
    ([key, value]) => value !== DEFAULT_CHANNEL_OPTIONS[key as keyof typeof DEFAULT_CHANNEL_OPTIONS],
  );
  return changed.length === 0 ? rest : { ...rest, options: Object.fromEntries(changed) };
}

/**
 * Renders an event as one NDJSON line (without the newline), fields in a
 * fixed order whatever object the backend handed over:
 * `{"type":…,"worker":{"uid","address","pid","version","tags","extra","secure"[,"options"]}[,"reason"]}`
 * — see {@link workerJson} for `options` and `full`; `reason` is the
 * drop's reason, when the backend knows it (`"withdrawn"`, `"process-gone"`,
 * `"expired"`, `"malformed"`).
 *
 * @example
 * formatEventJson(discoveryEvent('worker-added', worker));
 * // '{"type":"worker-added","worker":{"uid":"6f1d…","address":"127.0.0.1:50051",…}}'
 *
 * @param full Print every channel option, defaults included.
 * @returns One line of JSON.
 */
export function formatEventJson(event: DiscoveryEvent, full = false): string {
  const worker = workerJson(event.worker, full);
  return JSON.stringify(
    event.reason === undefined ? { type: event.type, worker } : { type: event.type, worker, reason: event.reason },
  );
}
