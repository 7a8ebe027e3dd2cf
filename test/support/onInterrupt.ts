/**
 * Runs `cleanUp` when the process is interrupted (Ctrl-C, a test runner's
 * SIGTERM), then dies of the same signal. The handlers stay installed until
 * then: a second signal during the clean-up (Ctrl-C twice) would otherwise
 * kill the process half-way and leave behind what it was removing (a
 * network namespace, a server's data directory).
 * @param cleanUp Synchronous: removes what the tests made.
 * @param signals The signals to handle.
 */
export function onInterrupt(
  cleanUp: () => void,
  signals: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'],
): void {
  let interrupted = false;
  const handlers = signals.map((signal) => {
    const handler = (): void => {
      if (interrupted) return;
      interrupted = true;
      cleanUp();
      for (const [other, installed] of handlers) process.removeListener(other, installed);
      process.kill(process.pid, signal);
    };
    process.on(signal, handler);
    return [signal, handler] as const;
  });
}
