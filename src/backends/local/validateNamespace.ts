import { describeValue } from '../../model/describeValue.js';

/** Longest file name on Linux file systems (`NAME_MAX`), in bytes. */
const NAME_MAX = 255;
/** The longest name derived from a namespace is its notification directory, `wool-<namespace>`. */
const DERIVED_PREFIX = 'wool-';
/** Longest namespace, in UTF-8 bytes: `wool-<namespace>` must fit `NAME_MAX`. */
export const MAX_NAMESPACE_BYTES = NAME_MAX - DERIVED_PREFIX.length;

/**
 * Checks that a namespace can name files under the temp directory: a
 * non-empty string without `/`, `..` or NUL (wool puts the raw namespace in
 * the notification directory's name), at most {@link MAX_NAMESPACE_BYTES}
 * (250) UTF-8 bytes so that `wool-<namespace>` fits `NAME_MAX` (255).
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
  const bytes = Buffer.byteLength(namespace, 'utf8');
  if (bytes > MAX_NAMESPACE_BYTES) {
    throw new TypeError(
      `Invalid local namespace: ${describeValue(namespace.length > 40 ? `${namespace.slice(0, 40)}…` : namespace)} is ${bytes} bytes long (at most ${MAX_NAMESPACE_BYTES} UTF-8 bytes: the directory wool-<namespace> must fit NAME_MAX, ${NAME_MAX} bytes)`,
    );
  }
  return namespace;
}
