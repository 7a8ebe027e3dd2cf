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
