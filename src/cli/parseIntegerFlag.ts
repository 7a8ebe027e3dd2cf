import { UsageError } from './UsageError.js';

const INTEGER = /^-?\d+$/;

/**
 * Reads an integer flag value written in decimal.
 *
 * @example
 * parseIntegerFlag('pid', '4242'); // 4242
 * parseIntegerFlag('pid', '12abc'); // throws UsageError: --pid: "12abc" is not an integer
 *
 * @param flag The flag's long name, for the message.
 * @param text The value as given.
 * @returns The integer (range checks are the consumer's).
 * @throws {UsageError} When the value is not a decimal integer.
 */
export function parseIntegerFlag(flag: string, text: string): number {
  const value = INTEGER.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(value)) {
    throw new UsageError(`--${flag}: ${JSON.stringify(text)} is not an integer`);
  }
  return value;
}
