import type { DiscoveryDiagnostic } from '../discovery/types.js';

/**
 * Why `initialWorkers` gave up (`woolrx list`): the backend could not be
 * reached in time. Internal to the CLI, which prints it as one line.
 *
 * @example
 * if (error instanceof BackendUnreachable) stderr.write(`gave up after ${error.timeoutMs} ms\n`);
 * @internal
 */
export class BackendUnreachable extends Error {
  /**
   * @param failure The failure the backend last reported (and had not recovered from).
   * @param timeoutMs How long the backend was given.
   */
  constructor(
    readonly failure: DiscoveryDiagnostic,
    readonly timeoutMs: number,
  ) {
    super(failure.message, { cause: failure.error });
    this.name = 'BackendUnreachable';
  }
}
