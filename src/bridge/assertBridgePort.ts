import { describeValue } from '../model/describeValue.js';
import type { BridgePort } from './types.js';

/**
 * Checks that `port` can carry the bridge. @internal
 *
 * @param port The candidate.
 * @param caller The function name, for the error.
 * @throws {TypeError} When it has no `postMessage` or no way to listen.
 */
export function assertBridgePort(port: unknown, caller: string): asserts port is BridgePort {
  const candidate = port as Partial<Record<string, unknown>> | null;
  const ok =
    candidate !== null &&
    (typeof candidate === 'object' || typeof candidate === 'function') &&
    typeof candidate.postMessage === 'function' &&
    (typeof candidate.on === 'function' ||
      typeof candidate.addEventListener === 'function' ||
      'onmessage' in candidate);
  if (!ok) {
    throw new TypeError(
      `Invalid ${caller} port: ${describeValue(port)} (expected postMessage and on/addEventListener/onmessage)`,
    );
  }
}
