import { setTimeout as sleep } from 'node:timers/promises';
import { lockSync } from 'proper-lockfile';
import { LockTimeoutError } from './LockTimeoutError.js';

/** What {@link acquireNamespaceLock} needs. @internal */
export interface NamespaceLockOptions {
  readonly namespace: string;
  /** The file wool flock()s; proper-lockfile creates `<lockPath>.lock` next to it. */
  readonly lockPath: string;
  readonly lockTimeout: number;
  readonly lockStale: number;
}

/**
 * Tries once to take the namespace lock, without waiting.
 *
 * @param options The lock to take.
 * @returns A release function, or `undefined` when another holder has it.
 * @throws Any error but "already locked" (e.g. an unwritable temp directory).
 * @internal
 */
export function tryNamespaceLock(options: NamespaceLockOptions): (() => void) | undefined {
  try {
    return lockSync(options.lockPath, {
      stale: options.lockStale,
      realpath: false,
      // Critical sections are synchronous and take microseconds; a
      // "compromised" lock can only mean the holder was frozen for longer
      // than `stale`. Nothing to undo then: the section is long finished.
      onCompromised: () => undefined,
    });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOCKED') return undefined;
    throw error;
  }
}

/**
 * Takes the namespace lock (a proper-lockfile `mkdir` lock on wool's lock
 * path), retrying with a short backoff until `lockTimeout`. A lock whose
 * holder died is recovered once older than `lockStale`.
 *
 * Callers run their whole read-modify-write synchronously between this
 * promise resolving and calling the release function.
 *
 * @param options The lock to take.
 * @returns A release function (synchronous, idempotent).
 * @throws {LockTimeoutError} When the lock stays busy for `lockTimeout` ms.
 * @internal
 */
export async function acquireNamespaceLock(options: NamespaceLockOptions): Promise<() => void> {
  const deadline = performance.now() + options.lockTimeout;
  let delay = 1;
  for (;;) {
    const release = tryNamespaceLock(options);
    if (release !== undefined) {
      let released = false;
      return () => {
        if (released) return;
        released = true;
        try {
          release();
        } catch {
          // Already removed (taken over as stale): nothing left to release.
        }
      };
    }
    const left = deadline - performance.now();
    if (left <= 0) throw new LockTimeoutError(options.namespace, options.lockTimeout);
    await sleep(Math.min(delay, left));
    delay = Math.min(delay * 2, 20);
  }
}
