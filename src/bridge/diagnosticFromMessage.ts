import type { DiscoveryDiagnostic } from '../discovery/types.js';
import { describeValue } from '../model/describeValue.js';
import { errorFromPayload } from './errorFromPayload.js';
import type { BridgeMessage } from './types.js';

const KINDS: ReadonlySet<unknown> = new Set<DiscoveryDiagnostic['kind']>([
  'malformed-record',
  'unauthenticated-record',
  'warning',
  'recovered',
]);

/**
 * The diagnostic a `diagnostic` message from the owner carries, checked and
 * frozen, its `error` an `Error` with the original `name`, `message` and
 * `code`; `undefined` for any other message. @internal
 *
 * @example
 * diagnosticFromMessage(message)?.kind; // 'warning'
 *
 * @param message A message of one subscription.
 * @returns The diagnostic, or `undefined`.
 * @throws {TypeError} Naming a payload that is not a diagnostic.
 */
export function diagnosticFromMessage(message: BridgeMessage): DiscoveryDiagnostic | undefined {
  if (message.kind !== 'diagnostic') return undefined;
  const payload = message.diagnostic as unknown as Partial<Record<string, unknown>> | null | undefined;
  if (
    payload === null ||
    typeof payload !== 'object' ||
    !KINDS.has(payload['kind']) ||
    typeof payload['namespace'] !== 'string' ||
    typeof payload['message'] !== 'string' ||
    (payload['uid'] !== undefined && typeof payload['uid'] !== 'string')
  ) {
    throw new TypeError(`Invalid diagnostic from the bridge: ${describeValue(payload)}`);
  }
  const { diagnostic } = message;
  return Object.freeze({
    kind: diagnostic.kind as DiscoveryDiagnostic['kind'],
    namespace: diagnostic.namespace,
    message: diagnostic.message,
    ...(diagnostic.uid === undefined ? {} : { uid: diagnostic.uid }),
    ...(diagnostic.error === undefined ? {} : { error: errorFromPayload(diagnostic.error) }),
  });
}
