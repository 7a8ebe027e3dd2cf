import { WoolrxError } from './WoolrxError.js';

/**
 * A backend needs a package that is not installed, or that is installed but
 * does not load on this runtime (a native addon built for another Node or
 * Electron ABI). The message says what to install or rebuild; `packageName`
 * names the package.
 *
 * woolrx loads these packages on first use, never at import time, so
 * `woolrx/local` and `woolrx/etcd` always load and the failure arrives where
 * the backend is used: a stream error, or a rejected `publish()`.
 * Code: `'WOOLRX_MISSING_DEPENDENCY'`.
 */
export class MissingDependencyError extends WoolrxError {
  /** The npm package to install (or rebuild), e.g. `'etcd3'`. */
  readonly packageName: string;
  /** The woolrx entry that needs it, e.g. `'woolrx/etcd'`. */
  readonly entry: string;

  /**
   * @param packageName The npm package to install (or rebuild).
   * @param entry The woolrx entry that needs it.
   * @param installed Whether the package was found but failed to load.
   * @param options Standard `ErrorOptions`: `cause` is the loader's error.
   */
  constructor(packageName: string, entry: string, installed: boolean, options?: ErrorOptions) {
    const cause: unknown = options?.cause;
    const reason =
      cause instanceof Error ? cause.message.split('\n')[0] : typeof cause === 'string' ? cause : 'it failed to load';
    super(
      'WOOLRX_MISSING_DEPENDENCY',
      installed
        ? `${entry} cannot load ${packageName} (${reason}): ` +
            `reinstall it for this runtime (npm rebuild ${packageName}; in Electron, @electron/rebuild)`
        : `${entry} needs the package ${packageName}, which is not installed: npm install ${packageName}`,
      options,
    );
    this.packageName = packageName;
    this.entry = entry;
  }
}
