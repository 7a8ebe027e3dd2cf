import { MissingDependencyError } from '../errors/MissingDependencyError.js';
import { nodeRequire } from './nodeRequire.js';

const loaded = new Map<string, unknown>();

function notFound(error: unknown, packageName: string): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code !== 'MODULE_NOT_FOUND' && code !== 'ERR_MODULE_NOT_FOUND') return false;
  // Only the package itself missing, not something it requires.
  return error instanceof Error && error.message.includes(`'${packageName}'`);
}

/**
 * Loads an optional package on first use (synchronously, with Node's
 * `require`, from woolrx's own location) and caches it. Nothing imports it at
 * load time, so the entry that needs it always loads, and bundlers leave it
 * to be resolved at run time from `node_modules`.
 * @param packageName The package, e.g. `'etcd3'`.
 * @param entry The woolrx entry that needs it, for the error message.
 * @returns The package's exports.
 * @throws {MissingDependencyError} When it is not installed or does not load.
 * @internal
 */
export function requireOptional<T>(packageName: string, entry: string): T {
  if (loaded.has(packageName)) return loaded.get(packageName) as T;
  let value: T;
  try {
    const resolve = nodeRequire();
    if (resolve === undefined)
      throw new MissingDependencyError(packageName, entry, false, { cause: 'no CommonJS require() here' });
    value = resolve(packageName) as T;
  } catch (error) {
    if (error instanceof MissingDependencyError) throw error;
    throw new MissingDependencyError(packageName, entry, !notFound(error, packageName), { cause: error });
  }
  loaded.set(packageName, value);
  return value;
}
