import type { BridgeErrorPayload } from './types.js';

/**
 * The error a subscription on the receiving side gets: an `Error` with the
 * original `name`, `message` and `code` (the class itself cannot cross a
 * port; match on `code` or `name`). @internal
 *
 * @param payload What crossed the port.
 * @returns The error.
 */
export function errorFromPayload(payload: BridgeErrorPayload): Error {
  const error = new Error(typeof payload.message === 'string' ? payload.message : 'unknown error');
  error.name = typeof payload.name === 'string' ? payload.name : 'Error';
  if (payload.code !== undefined) Object.assign(error, { code: payload.code });
  return error;
}
