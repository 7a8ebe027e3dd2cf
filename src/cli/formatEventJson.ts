import { workerPayload } from '../bridge/workerPayload.js';
import type { DiscoveryEvent } from '../events/types.js';

/**
 * Renders an event as one NDJSON line (without the newline), fields in a
 * fixed order whatever object the backend handed over:
 * `{"type":…,"worker":{"uid","address","pid","version","tags","extra","secure","options"}}`.
 *
 * @example
 * formatEventJson(discoveryEvent('worker-added', worker));
 * // '{"type":"worker-added","worker":{"uid":"6f1d…","address":"127.0.0.1:50051",…}}'
 *
 * @param event The event.
 * @returns One line of JSON.
 */
export function formatEventJson(event: DiscoveryEvent): string {
  return JSON.stringify({ type: event.type, worker: workerPayload(event.worker) });
}
