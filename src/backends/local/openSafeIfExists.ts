import { openSafe, type SafeFile } from './openSafe.js';

/**
 * {@link openSafe} for an object that may not exist: the same checks, and
 * `undefined` instead of an `ENOENT` error.
 * @internal
 * @param path The object's path.
 * @param flags `open(2)` flags (without `O_CREAT`).
 * @returns The open, checked file, or `undefined` when there is none.
 * @throws {UnsafeObjectError} As {@link openSafe}; any other error but `ENOENT`.
 */
export function openSafeIfExists(path: string, flags: number): SafeFile | undefined {
  try {
    return openSafe(path, flags);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}
