import { mkdirSync, realpathSync, rmdirSync, statSync, utimesSync } from 'node:fs';
import { dirname } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { lock as lockCore } from 'proper-lockfile/lib/lockfile.js';
import { LockTimeoutError } from './LockTimeoutError.js';

type Callback = (error: unknown, value?: unknown) => void;

// proper-lockfile's own `lockSync` wraps this same core (`lib/lockfile.js`),
// but copies the whole fs module on every call and so never caches its
// mtime-precision probe: ~3x the cost of the mkdir itself. Driving the core
// directly with a persistent synchronous fs gives the same lock (mkdir,
// stale takeover, mtime refresh) in one mkdir + one stat, and the release in
// one rmdir.

function synchronous(method: (...args: never[]) => unknown): (...args: unknown[]) => void {
  return (...args: unknown[]) => {
    const callback = args.pop() as Callback;
    let result: unknown;
    try {
      result = method(...(args as never[]));
    } catch (error) {
      callback(error);
      return;
    }
    callback(null, result);
  };
}

/** The calls proper-lockfile makes, answered synchronously (the callback runs before the call returns). */
const LOCK_FS = {
  mkdir: synchronous(mkdirSync),
  rmdir: synchronous(rmdirSync),
  stat: synchronous(statSync),
  utimes: synchronous(utimesSync),
  realpath: synchronous(realpathSync),
};

/** What {@link acquireNamespaceLock} needs. @internal */
export interface NamespaceLockOptions {
  readonly namespace: string;
  /** The file wool flock()s (proper-lockfile is told its name, for its bookkeeping). */
  readonly lockPath: string;
  /** The directory proper-lockfile creates atomically as the lock. */
  readonly lockDirPath: string;
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
  // The lock's parent directory is created on demand and removed by the last
  // one out, possibly between our mkdir of it and our lock: create it again.
  for (let attempt = 1; ; attempt += 1) {
    try {
      return lockOnce(options);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || attempt >= 5) throw error;
      mkdirSync(dirname(options.lockDirPath), { recursive: true, mode: 0o700 });
    }
  }
}

/**
 * Removes the (empty) parent directory of the lock; a no-op while anyone
 * holds the lock. For the last one out, after releasing.
 * @param options The lock.
 * @internal
 */
export function removeLockParent(options: Pick<NamespaceLockOptions, 'lockDirPath'>): void {
  try {
    rmdirSync(dirname(options.lockDirPath));
  } catch {
    // Held again already, or gone.
  }
}

function lockOnce(options: NamespaceLockOptions): (() => void) | undefined {
  let failure: unknown;
  let release: ((callback: Callback) => void) | undefined;
  lockCore(
    options.lockPath,
    {
      stale: options.lockStale,
      realpath: false,
      lockfilePath: options.lockDirPath,
      fs: LOCK_FS,
      // Critical sections are synchronous and take microseconds; a
      // "compromised" lock can only mean the holder was frozen for longer
      // than `stale`. Nothing to undo then: the section is long finished.
      onCompromised: () => undefined,
    },
    (error, releaser) => {
      failure = error;
      release = releaser;
    },
  );
  if (failure !== null && failure !== undefined) {
    if ((failure as NodeJS.ErrnoException).code === 'ELOCKED') return undefined;
    throw failure instanceof Error ? failure : new Error('proper-lockfile failed', { cause: failure });
  }
  if (release === undefined) throw new Error('proper-lockfile did not answer synchronously');
  const releaser = release;
  return () => {
    let error: unknown;
    releaser((e) => {
      error = e;
    });
    if (error !== null && error !== undefined) throw error instanceof Error ? error : new Error('proper-lockfile release failed', { cause: error });
  };
}

/**
 * Takes the namespace lock (a proper-lockfile `mkdir` lock, the directory
 * on tmpfs next to the segment: `/dev/shm/woolrx-lock-<short_hash(ns)>`),
 * retrying with a short backoff until `lockTimeout`. A lock whose
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
