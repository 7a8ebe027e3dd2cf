import type { BridgeErrorPayload } from './types.js';

/**
 * The error a subscription on the receiving side gets: an `Error` with the
 * original `name`, `message` and `code` (the class itself cannot cross a
 * port; match on `code` or `name`). @internal
 *
 * @example
 * const error = errorFromPayload({ name: 'LockTimeoutError', message: 'busy', code: 'WOOLRX_LOCK_TIMEOUT' });
 * error.code; // 'WOOLRX_LOCK_TIMEOUT'
 *
 * @param payload What crossed the port.
 */
export function errorFromPayload(payload: BridgeErrorPayload | undefined): Error {
  const message = payload?.message;
  const error = new Error(typeof message === 'string' ? message : 'unknown error');
  error.name = typeof payload?.name === 'string' ? payload.name : 'Error';
  const code = payload?.code;
  if (typeof code === 'string' || typeof code === 'number') Object.assign(error, { code });
  return error;
}
