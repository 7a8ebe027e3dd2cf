import { lstatSync, mkdirSync } from 'node:fs';
import { assertSafe } from './assertSafe.js';

/**
 * Creates a namespace directory (mode 0700) unless it exists, then checks
 * it (`lstat`: a symbolic link is refused, never followed): a directory
 * owned by this process's user that nobody else can write. Its parent must
 * exist (the temp directory, `/dev/shm`).
 *
 * @param path The directory.
 * @throws {UnsafeObjectError} When it is not safe.
 * @internal
 */
export function ensureSafeDir(path: string): void {
  try {
    mkdirSync(path, { mode: 0o700 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  assertSafe(lstatSync(path), path, 'directory');
}
