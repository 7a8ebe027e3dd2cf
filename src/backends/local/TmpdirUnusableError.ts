import { WoolrxError } from '../../errors/WoolrxError.js';
import { accessSync, constants, statSync } from 'node:fs';

/**
 * The temp directory of a local namespace (where wool's lock file and the
 * notification folder live: option `tmpdir`, default `os.tmpdir()`) is
 * missing, not a directory, or not writable by this user. A subscription
 * errors with it, a publish rejects with it, `localDiscovery()` throws it
 * when the directory does not exist; nothing is left behind. Code
 * `'WOOLRX_TMPDIR_UNUSABLE'`.
 */
export class TmpdirUnusableError extends WoolrxError {
  /** The directory, as resolved. */
  readonly path: string;

  /**
   * @param why What is wrong with it (`'is not a directory'`, ...).
   * @param cause The error of the step that failed, if any.
   */
  constructor(path: string, why: string, cause?: unknown) {
    super(
      'WOOLRX_TMPDIR_UNUSABLE',
      `localDiscovery: tmpdir ${path} ${why}; pass an existing directory this user can write as option tmpdir ` +
        `(default: os.tmpdir(), from $TMPDIR)`,
      cause === undefined ? undefined : { cause },
    );
    this.path = path;
  }
}

/** What is wrong with `path` as a temp directory, or `undefined`. */
function problem(path: string): string | undefined {
  let stat;
  try {
    stat = statSync(path, { throwIfNoEntry: false });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ENOTDIR' ? 'is not a directory' : `cannot be reached by this user (${code ?? 'error'})`;
  }
  if (stat === undefined) return 'does not exist';
  if (!stat.isDirectory()) return 'is not a directory';
  try {
    accessSync(path, constants.W_OK | constants.X_OK);
  } catch {
    return `is not writable by this user (uid ${process.getuid?.() ?? -1})`;
  }
  return undefined;
}

/**
 * Why a step of a local namespace failed, when the cause is its temp
 * directory — missing, not a directory, or not writable by this user — as
 * a {@link TmpdirUnusableError} naming it and the fix. Asked only after a
 * step failed: nothing is checked on the way of a working publish or
 * subscription.
 *
 * @example
 * try { ensureNotifyDir(names); } catch (error) { throw tmpdirError(tmpdir, error) ?? error; }
 *
 * @param path The temp directory (the realpath the namespace's names are under).
 * @param cause The error of the step that failed.
 * @returns The error to report instead, or `undefined` when the directory is usable.
 * @internal
 */
export function tmpdirError(path: string, cause?: unknown): TmpdirUnusableError | undefined {
  const why = problem(path);
  return why === undefined ? undefined : new TmpdirUnusableError(path, why, cause);
}
