import { describeValue } from '../../model/describeValue.js';

/**
 * Checks that a namespace can name files under the temp directory: a
 * non-empty string without `/`, `..` or NUL (wool puts the raw namespace in
 * the notification directory's name).
 *
 * @param namespace The value to check.
 * @returns The namespace.
 * @throws {TypeError} Naming the bad value.
 */
export function validateNamespace(namespace: unknown): string {
  if (typeof namespace !== 'string' || namespace.length === 0) {
    throw new TypeError(`Invalid local namespace: ${describeValue(namespace)} (expected a non-empty string)`);
  }
  if (namespace.includes('/') || namespace.includes('..') || namespace.includes('\0')) {
    throw new TypeError(
      `Invalid local namespace: ${describeValue(namespace)} (must not contain "/", ".." or NUL: it names a directory under the temp directory)`,
    );
  }
  return namespace;
}
