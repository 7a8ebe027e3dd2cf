import { dirname } from 'node:path';
import { acquireNamespaceLock, removeLockParent, tryNamespaceLock, type NamespaceLockOptions } from './acquireNamespaceLock.js';
import { cleanupNamespace } from './cleanupNamespace.js';
import { tmpdirError } from './tmpdirError.js';
import type { LocalNames, LocalSettings } from './types.js';

/**
 * A leaving subscriber's "last one out": under the namespace lock, removes
 * what woolrx created for the namespace if nobody has a worker in it (see
 * {@link cleanupNamespace}). Tries the lock once, synchronously; when it is
 * busy, retries in the background without keeping the process alive, and
 * only through lock files that are still there: the holder may be leaving
 * last and remove them, and then there is nothing left to do. When taking
 * the lock fails (an unusable temp directory, say), the lock directory it
 * created is removed again.
 * @internal
 * @param names The namespace's names.
 * @param settings Resolved options (the lock's timeout and staleness).
 * @param warn Reports a failure (the subscriber's `warning` diagnostic).
 */
export function leaveNamespace(names: LocalNames, settings: LocalSettings, warn: (message: string, error: unknown) => void): void {
  // Only what the lock needs, written out: an object spread of both
  // (17 properties) cost ~3 KB of young-generation allocation per call on
  // Node.js 20, half of it surviving to the old generation (#25).
  const lock: NamespaceLockOptions = {
    namespace: names.namespace,
    lockPath: names.lockPath,
    rxLockPath: names.rxLockPath,
    lockDirPath: names.lockDirPath,
    lockTimeout: settings.lockTimeout,
  };
  const run = (release: () => void): void => {
    try {
      cleanupNamespace(names);
    } catch (error) {
      warn('Cleaning up the namespace failed', error);
    } finally {
      release();
    }
    // Empty once released if the journal went too (a no-op otherwise).
    removeLockParent(names);
  };
  try {
    const release = tryNamespaceLock(lock);
    if (release !== undefined) return run(release);
  } catch (error) {
    removeLockParent(names);
    return warn('Cleaning up the namespace failed', tmpdirError(dirname(names.lockPath), error) ?? error);
  }
  const timer = setTimeout(() => {
    acquireNamespaceLock({ ...lock, existing: true }).then(run, () => undefined);
  }, 5);
  timer.unref();
}
