import type { BridgeErrorPayload } from './types.js';

/**
 * An error as plain data for the port: `{ name, message, code? }`
 * (anything thrown, not only `Error`s). @internal
 *
 * @example
 * errorPayload(new LockTimeoutError(…)); // { name: 'LockTimeoutError', message: '…', code: 'WOOLRX_LOCK_TIMEOUT' }
 *
 * @param error What the upstream sent down its error channel.
 */
export function errorPayload(error: unknown): BridgeErrorPayload {
  try {
    return payloadOf(error);
  } catch {
    // An error whose name or message throws when read: still an error on the other side.
    return { name: 'Error', message: 'an error that could not be read' };
  }
}

function payloadOf(error: unknown): BridgeErrorPayload {
  if (error instanceof Error) {
    const { code } = error as { code?: unknown };
    return {
      name: String(error.name),
      message: String(error.message),
      ...(typeof code === 'string' || typeof code === 'number' ? { code } : {}),
    };
  }
  let message: string;
  try {
    message = typeof error === 'string' ? error : (JSON.stringify(error) ?? String(error));
  } catch {
    message = Object.prototype.toString.call(error);
  }
  return { name: 'Error', message };
}
