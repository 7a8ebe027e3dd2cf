import { closeSync, constants, fstatSync, openSync, type Stats, lstatSync, mkdirSync, unlinkSync } from 'node:fs';
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
    if ((error as NodeJS.ErrnoException).code === 'ELOOP')
      throw new UnsafeObjectError(path, -1, -1, 'it is a symbolic link');
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

/**
 * {@link openSafe} for an object that may not exist: the same checks, and
 * `undefined` instead of an `ENOENT` error.
 * @internal
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
    throw new UnsafeObjectError(
      path,
      stats.uid,
      stats.mode,
      `it belongs to uid ${stats.uid}, not to this process's uid ${euid}`,
    );
  }
  if ((stats.mode & WRITABLE_BY_OTHERS) !== 0) {
    throw new UnsafeObjectError(path, stats.uid, stats.mode, 'users other than its owner can write it');
  }
}

/**
 * Creates a namespace directory (mode 0700) unless it exists, then checks
 * it (`lstat`: a symbolic link is refused, never followed): a directory
 * owned by this process's user that nobody else can write. Its parent must
 * exist (the temp directory, `/dev/shm`).
 *
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

/**
 * Unlinks a file that may already be gone.
 * @internal
 * @throws Any error but `ENOENT`.
 */
export function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}
