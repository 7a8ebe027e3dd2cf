import { mkdirSync, realpathSync, rmdirSync, statSync, utimesSync } from 'node:fs';
import { dirname } from 'node:path';
import { setImmediate as yieldToLoop, setTimeout as sleep } from 'node:timers/promises';
import { lock as lockCore } from 'proper-lockfile/lib/lockfile.js';
import { retryDelay } from '../../discovery/retryDelay.js';
import { LockTimeoutError } from './LockTimeoutError.js';
import { WoolFlock } from './WoolFlock.js';

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
  /** wool's lock file, `flock(2)`ed exclusively (proper-lockfile is also told its name, for its bookkeeping). */
  readonly lockPath: string;
  /** The directory proper-lockfile creates atomically as the lock. */
  readonly lockDirPath: string;
  readonly lockTimeout: number;
  readonly lockStale: number;
  /**
   * wool's `flock`: a {@link WoolFlock} on `lockPath` that the caller keeps
   * (and closes) across acquisitions; `undefined`: one opened for this
   * acquisition and closed by its release; `false`: not taken (sections
   * that only read the segment, which need to exclude woolrx writers only).
   */
  readonly woolFlock?: WoolFlock | false | undefined;
}

/** A release function (synchronous, idempotent): wool's flock first, then woolrx's lock. */
type Release = () => void;

/**
 * Tries once to take the namespace lock — woolrx's lock, then wool's
 * `flock` (unless `woolFlock` is `false`) — without waiting.
 *
 * @param options The lock to take.
 * @returns A release function, or `undefined` when another holder has either lock (then neither is held).
 * @throws Any error but "already locked" (e.g. an unwritable temp directory); then neither is held.
 * @internal
 */
export function tryNamespaceLock(options: NamespaceLockOptions): Release | undefined {
  const releaseDir = tryDirLock(options);
  if (releaseDir === undefined) return undefined;
  if (options.woolFlock === false) return once(releaseDir);
  const flock = options.woolFlock ?? new WoolFlock(options.lockPath);
  const owned = options.woolFlock === undefined;
  let taken = false;
  try {
    taken = flock.tryLock();
  } finally {
    if (!taken) {
      if (owned) flock.close();
      releaseDirQuietly(releaseDir);
    }
  }
  return taken ? bothReleased(flock, owned, releaseDir) : undefined;
}

/** woolrx's lock alone, once. */
function tryDirLock(options: NamespaceLockOptions): Release | undefined {
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

function releaseDirQuietly(release: Release): void {
  try {
    release();
  } catch {
    // Already removed (taken over as stale): nothing left to release.
  }
}

function once(release: Release): Release {
  let released = false;
  return () => {
    if (released) return;
    released = true;
    releaseDirQuietly(release);
  };
}

/** Releases in reverse order of acquisition: wool's flock, then woolrx's lock. */
function bothReleased(flock: WoolFlock, owned: boolean, releaseDir: Release): Release {
  let released = false;
  return () => {
    if (released) return;
    released = true;
    try {
      if (owned) flock.close();
      else flock.unlock();
    } finally {
      releaseDirQuietly(releaseDir);
    }
  };
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
 * Takes the namespace lock: woolrx's lock (a proper-lockfile `mkdir` lock,
 * the directory on tmpfs next to the segment:
 * `/dev/shm/woolrx-lock-<short_hash(ns)>`), then, holding it, wool's lock
 * (an exclusive `flock(2)` on `<realpath(tmpdir)>/wool-lock-<short_hash(ns)>`,
 * unless `woolFlock` is `false`), so that woolrx and wool publishers exclude
 * each other. Never blocks the event loop: both are tried without waiting,
 * with a short asynchronous backoff, and together bounded by `lockTimeout`.
 * A woolrx lock whose holder died is recovered once older than `lockStale`;
 * a dead holder's `flock` is released by the kernel.
 *
 * Callers run their whole read-modify-write synchronously between this
 * promise resolving and calling the release function.
 *
 * @param options The lock to take.
 * @returns A release function (synchronous, idempotent): releases wool's lock, then woolrx's.
 * @throws {LockTimeoutError} When either lock stays busy until `lockTimeout` ms have passed (then neither is held).
 * @internal
 */
export async function acquireNamespaceLock(options: NamespaceLockOptions): Promise<Release> {
  const deadline = performance.now() + options.lockTimeout;
  let releaseDir: Release | undefined;
  // Holders keep the lock for tens to hundreds of microseconds: retry on the
  // next turn of the event loop a few times, then every 1, 2, 4, ... 20 ms.
  for (let attempt = 0; ; attempt += 1) {
    releaseDir = tryDirLock(options);
    if (releaseDir !== undefined) break;
    const left = deadline - performance.now();
    if (left <= 0) throw new LockTimeoutError(options.namespace, options.lockTimeout);
    if (attempt < 8) await yieldToLoop();
    else await sleep(Math.min(retryDelay(attempt - 8, 1, 20), left));
  }
  if (options.woolFlock === false) return once(releaseDir);
  const flock = options.woolFlock ?? new WoolFlock(options.lockPath);
  const owned = options.woolFlock === undefined;
  try {
    // wool holds its flock for microseconds to milliseconds: retry on the
    // next turn of the event loop a few times, then every 1, 2, 4 ms.
    for (let attempt = 0; ; attempt += 1) {
      if (flock.tryLock()) return bothReleased(flock, owned, releaseDir);
      const left = deadline - performance.now();
      if (left <= 0) throw new LockTimeoutError(options.namespace, options.lockTimeout);
      if (attempt < 8) await yieldToLoop();
      else await sleep(Math.min(retryDelay(attempt - 8, 1, 4), left));
    }
  } catch (error) {
    // Timed out or failed: neither lock is kept.
    if (owned) flock.close();
    releaseDirQuietly(releaseDir);
    throw error;
  }
}
