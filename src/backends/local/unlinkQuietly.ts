import { unlinkSync } from 'node:fs';

/**
 * Unlinks a file that may already be gone.
 * @internal
 * @param path The file.
 * @throws Any error but `ENOENT`.
 */
export function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}
