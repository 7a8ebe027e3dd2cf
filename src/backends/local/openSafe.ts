import { closeSync, constants, fstatSync, openSync, type Stats } from 'node:fs';
import { assertSafe } from './assertSafe.js';
import { UnsafeObjectError } from './UnsafeObjectError.js';

/** An open, checked file. @internal */
export interface SafeFile {
  readonly fd: number;
  /** Its `fstat` at open. */
  readonly stats: Stats;
}

/**
 * Opens a namespace file without following a symbolic link (`O_NOFOLLOW`)
 * and checks what was opened (`fstat`): a regular file, owned by this
 * process's user, writable by nobody else. Errors of `open` (e.g. `ENOENT`,
 * `EEXIST`) are thrown as they are.
 *
 * @param path The file.
 * @param flags `open(2)` flags (`O_NOFOLLOW` is added).
 * @param mode Mode of a file created.
 * @returns The descriptor and its `fstat`.
 * @throws {UnsafeObjectError} When the path is a symbolic link or the file is not safe (then nothing is left open).
 * @internal
 */
export function openSafe(path: string, flags: number, mode = 0o600): SafeFile {
  let fd: number;
  try {
    fd = openSync(path, flags | constants.O_NOFOLLOW, mode);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOOP') throw new UnsafeObjectError(path, -1, -1, 'it is a symbolic link');
    throw error;
  }
  try {
    const stats = fstatSync(fd);
    assertSafe(stats, path, 'file');
    return { fd, stats };
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}
