import { closeSync, constants, openSync, lstatSync, mkdirSync, unlinkSync } from 'node:fs';
import { STAT_DEV, STAT_INO, STAT_MODE, STAT_SIZE, STAT_UID, statIds } from '../addon/statIds.js';
import { UnsafeObjectError } from './UnsafeObjectError.js';

/** An open, checked file, with the figures of its `fstat` at open. @internal */
export interface SafeFile {
  readonly fd: number;
  readonly dev: number;
  readonly ino: number;
  readonly size: number;
}

/**
 * Opens a namespace file without following a symbolic link (`O_NOFOLLOW`)
 * and checks what was opened (`fstat`): a regular file, owned by this
 * process's user, writable by nobody else. Errors of `open` (e.g. `ENOENT`,
 * `EEXIST`) are thrown as they are. The `fstat` goes through woolrx's addon
 * where it loads ({@link statIds}): a subscriber opens every block it reads,
 * and a `Stats` object per open was most of what its initial read allocated.
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
    const ids = statIds(fd) as Readonly<Float64Array>;
    assertSafe(path, 'file', ids[STAT_MODE] as number, ids[STAT_UID] as number);
    return { fd, dev: ids[STAT_DEV] as number, ino: ids[STAT_INO] as number, size: ids[STAT_SIZE] as number };
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
 * @param path The object's path, for the error.
 * @param type What it must be.
 * @param mode Its `st_mode` (file type bits included), from the `lstat` (directories) or `fstat` (open files).
 * @param uid Its owner.
 * @throws {UnsafeObjectError} Naming the object, its owner and mode.
 * @internal
 */
export function assertSafe(path: string, type: 'file' | 'directory', mode: number, uid: number): void {
  const kind = mode & constants.S_IFMT;
  if (kind === constants.S_IFLNK) throw new UnsafeObjectError(path, uid, mode, 'it is a symbolic link');
  if (kind !== (type === 'file' ? constants.S_IFREG : constants.S_IFDIR)) {
    throw new UnsafeObjectError(path, uid, mode, `it is not a ${type}`);
  }
  const euid = process.geteuid?.() ?? uid;
  if (uid !== euid) {
    throw new UnsafeObjectError(path, uid, mode, `it belongs to uid ${uid}, not to this process's uid ${euid}`);
  }
  if ((mode & WRITABLE_BY_OTHERS) !== 0) {
    throw new UnsafeObjectError(path, uid, mode, 'users other than its owner can write it');
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
  const stats = lstatSync(path);
  assertSafe(path, 'directory', stats.mode, stats.uid);
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
