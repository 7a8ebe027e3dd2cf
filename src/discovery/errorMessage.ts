/**
 * The message of a caught value, for diagnostics and error texts: an
 * `Error`'s `message`, anything else as `String(value)`.
 * @internal
 * @param error What was caught.
 * @returns A one-line description.
 */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * A caught value as an `Error`, for a promise's rejection: an `Error` as it
 * is, anything else wrapped with `String(value)` as its message.
 * @internal
 * @param error What was caught.
 */
export function toError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error), { cause: error });
}
