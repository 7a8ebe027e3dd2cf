/** Where an error records the names of its woolrx classes (shared by every copy of woolrx in a process). */
const CLASS_NAMES = Symbol.for('woolrx.errorClassNames');

/**
 * Base class of every error woolrx throws or sends down a stream.
 *
 * `code` is stable and machine-readable (`'WOOLRX_WORKER_NOT_FOUND'`, ...);
 * match on it, or on the subclass, never on the message text.
 *
 * `instanceof` works across copies of woolrx in one process — the ESM and
 * the CJS build, or two installed versions: an error made by one copy is an
 * instance of the other copy's class of the same name.
 */
export class WoolrxError extends Error {
  /** Stable, machine-readable error code. */
  readonly code: string;

  /**
   * @param code Stable, machine-readable error code.
   * @param message Human-readable message naming the offending value.
   * @param options Standard `ErrorOptions` (`cause`).
   */
  constructor(code: string, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
    const names: string[] = [];
    for (
      let type: unknown = new.target;
      typeof type === 'function' && type !== Error;
      type = Object.getPrototypeOf(type)
    ) {
      names.push((type as { name: string }).name);
    }
    Object.defineProperty(this, CLASS_NAMES, { value: Object.freeze(names) });
  }

  /**
   * `value instanceof WoolrxError` (or a subclass): by prototype, or — for an
   * error from another copy of woolrx — by the class names it was made with.
   * @param value Anything.
   * @returns Whether `value` is an instance of this class.
   */
  static override [Symbol.hasInstance](value: unknown): boolean {
    if (Function.prototype[Symbol.hasInstance].call(this, value)) return true;
    if (typeof value !== 'object' || value === null) return false;
    const names: unknown = (value as { [CLASS_NAMES]?: unknown })[CLASS_NAMES];
    return Array.isArray(names) && names.includes(this.name);
  }
}
