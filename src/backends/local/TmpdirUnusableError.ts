import { WoolrxError } from '../../errors/WoolrxError.js';

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
   * @param path The directory.
   * @param why What is wrong with it (`'is not a directory'`, ...).
   * @param cause The error of the step that failed, if any.
   */
  constructor(path: string, why: string, cause?: unknown) {
    super(
      'WOOLRX_TMPDIR_UNUSABLE',
      `localDiscovery: tmpdir ${path} ${why}; pass an existing directory this user can write as option tmpdir (default: os.tmpdir(), from $TMPDIR)`,
      cause === undefined ? undefined : { cause },
    );
    this.path = path;
  }
}
