import { WoolrxError } from '../../../errors/WoolrxError.js';

/**
 * A file or directory of a local namespace that woolrx refuses to use: a
 * symbolic link, an object of the wrong type, one owned by another user, or
 * one that users other than its owner can write (see "Security" in
 * docs/backends/local.md). Code `WOOLRX_UNSAFE_OBJECT`.
 */
export class UnsafeObjectError extends WoolrxError {
  /** The object's path. */
  readonly path: string;
  /** The uid of its owner (`-1` when unknown, e.g. a symbolic link not followed). */
  readonly owner: number;
  /** Its permission bits (`-1` when unknown). */
  readonly mode: number;

  /**
   * @param owner The uid of its owner, or `-1`.
   * @param mode Its permission bits, or `-1`.
   * @param why Why it is refused.
   */
  constructor(path: string, owner: number, mode: number, why: string) {
    const described = owner < 0 ? '' : ` (owner uid ${owner}, mode ${(mode & 0o7777).toString(8).padStart(4, '0')})`;
    super('WOOLRX_UNSAFE_OBJECT', `Refusing ${path}${described}: ${why}`);
    this.path = path;
    this.owner = owner;
    this.mode = mode;
  }
}
