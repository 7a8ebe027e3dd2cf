/**
 * Resolves once `signal` is aborted (at once if it already is).
 *
 * @example
 * await waitForAbort(signal); // until SIGINT/SIGTERM
 *
 * @param signal The signal to wait for.
 * @returns A promise that never rejects.
 */
export function waitForAbort(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    signal.addEventListener('abort', () => resolve(), { once: true });
  });
}
