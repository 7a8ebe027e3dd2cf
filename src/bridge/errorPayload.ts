import type { BridgeErrorPayload } from './types.js';

/**
 * An error as plain data for the port: `{ name, message, code? }`
 * (anything thrown, not only `Error`s). @internal
 *
 * @param error What the upstream sent down its error channel.
 * @returns The payload.
 */
export function errorPayload(error: unknown): BridgeErrorPayload {
  if (error instanceof Error) {
    const { code } = error as { code?: unknown };
    return {
      name: error.name,
      message: error.message,
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
