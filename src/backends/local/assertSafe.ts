import type { Stats } from 'node:fs';
import { UnsafeObjectError } from './UnsafeObjectError.js';

/** Permission bits that let users other than the owner write: group and others. */
const WRITABLE_BY_OTHERS = 0o022;

/**
 * Checks that a namespace object is safe to use: of the expected type (a
 * symbolic link never is), owned by this process's effective user, and
 * writable by nobody else (no group or other write bit). Called once when an
 * object is opened (on the `fstat`/`lstat` of the open), never per event.
 *
 * @param stats The object's `lstat` (directories) or `fstat` (open files).
 * @param path Its path, for the error.
 * @param type What it must be.
 * @throws {UnsafeObjectError} Naming the object, its owner and mode.
 * @internal
 */
export function assertSafe(stats: Stats, path: string, type: 'file' | 'directory'): void {
  if (stats.isSymbolicLink()) throw new UnsafeObjectError(path, stats.uid, stats.mode, 'it is a symbolic link');
  if (type === 'file' ? !stats.isFile() : !stats.isDirectory()) {
    throw new UnsafeObjectError(path, stats.uid, stats.mode, `it is not a ${type}`);
  }
  const euid = process.geteuid?.() ?? stats.uid;
  if (stats.uid !== euid) {
    throw new UnsafeObjectError(path, stats.uid, stats.mode, `it belongs to uid ${stats.uid}, not to this process's uid ${euid}`);
  }
  if ((stats.mode & WRITABLE_BY_OTHERS) !== 0) {
    throw new UnsafeObjectError(path, stats.uid, stats.mode, 'users other than its owner can write it');
  }
}
