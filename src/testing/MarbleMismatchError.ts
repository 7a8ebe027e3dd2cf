import { WoolrxError } from '../errors/WoolrxError.js';

/**
 * A marble test made with {@link workerTestScheduler} saw other frames than
 * it expected. The message lists both, with short worker descriptions.
 * Code `'WOOLRX_MARBLE_MISMATCH'`.
 */
export class MarbleMismatchError extends WoolrxError {
  /**
   * @param expected The expected frames, formatted.
   * @param actual The frames seen, formatted.
   */
  constructor(expected: string, actual: string) {
    super(
      'WOOLRX_MARBLE_MISMATCH',
      `Marble mismatch.\nExpected:\n${expected || '(nothing)'}\nActual:\n${actual || '(nothing)'}`,
    );
  }
}
