import { closeSync, constants, existsSync, rmdirSync, unlinkSync } from 'node:fs';
import { preadSync } from '../addon/preadSync.js';
import { pwriteSync } from '../addon/pwriteSync.js';
import { setImmediate as yieldToLoop, setTimeout as sleep } from 'node:timers/promises';
import { retryDelay } from '../../../discovery/retryDelay.js';
import { LockTimeoutError } from './LockTimeoutError.js';
import { FileLock } from './FileLock.js';
import { flock, loadFlock } from './flockAddon.js';
import { openSafe } from '../safe-fs/safeFs.js';

/** What {@link acquireNamespaceLock} needs. @internal */
export interface NamespaceLockOptions {
  readonly namespace: string;
  /** wool's lock file, `flock(2)`ed exclusively. */
  readonly lockPath: string;
  /** woolrx's lock file, `flock(2)`ed exclusively first (`<lockDirPath>/lock`). */
  readonly rxLockPath: string;
  /** woolrx's lock directory (`/dev/shm/woolrx-lock-<short_hash(ns)>`), created 0700 on demand. */
  readonly lockDirPath: string;
  readonly lockTimeout: number;
  /**
   * Take the lock only through lock files that exist: a missing one (or a
   * missing lock directory) is not created, and the acquisition fails with
   * `ENOENT` at once. For a leaver retrying after the lock was busy: the
   * holder, leaving last, may have removed them, and re-creating them would
   * leave them behind should this process exit before its retry is done.
   */
  readonly existing?: boolean;
  /**
   * woolrx's lock: a {@link FileLock} on `rxLockPath` that the caller keeps
   * (and closes) across acquisitions; `undefined`: one opened for this
   * acquisition and closed by its release.
   */
  readonly rxFlock?: FileLock | undefined;
  /**
   * wool's `flock`: a {@link FileLock} on `lockPath` that the caller keeps
   * (and closes) across acquisitions; `undefined`: one opened for this
   * acquisition and closed by its release.
   */
  readonly woolFlock?: FileLock | undefined;
}

/** A release function (synchronous, idempotent): wool's flock first, then woolrx's lock. */
type Release = () => void;

/** One lock: its flock, and whether this acquisition opened it (then its release closes it). */
interface Held {
  readonly flock: FileLock;
  readonly owned: boolean;
}

function rxFlockOf(options: NamespaceLockOptions): Held {
  return options.rxFlock === undefined
    ? { flock: new FileLock(options.rxLockPath, options.lockDirPath, options.existing === true), owned: true }
    : { flock: options.rxFlock, owned: false };
}

function woolFlockOf(options: NamespaceLockOptions): Held {
  return options.woolFlock === undefined
    ? { flock: new FileLock(options.lockPath, undefined, options.existing === true), owned: true }
    : { flock: options.woolFlock, owned: false };
}

/** Releases (or closes, if this acquisition opened it) one lock; never throws. */
function letGo(held: Held): void {
  try {
    if (held.owned) held.flock.close();
    else held.flock.unlock();
  } catch {
    // Closing the descriptor releases it anyway.
  }
}

/**
 * One non-blocking attempt on one lock. The lock's directory is removed by
 * the last one out, possibly between our creating it and our opening the
 * file in it: create it again (a few times) — unless only existing files
 * are used, when it is gone for good.
 */
function tryOnce(held: Held, existing: boolean | undefined): boolean {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return held.flock.tryLock();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || attempt >= 5 || existing === true) throw error;
    }
  }
}

/** Releases in reverse order of acquisition: wool's flock, then woolrx's lock. */
function bothReleased(rx: Held, wool: Held): Release {
  let released = false;
  return () => {
    if (released) return;
    released = true;
    letGo(wool);
    letGo(rx);
  };
}

/**
 * Tries once to take the namespace lock — woolrx's lock, then wool's
 * `flock` — without waiting.
 *
 * @param options The lock to take.
 * @returns A release function, or `undefined` when another holder has either lock (then neither is held).
 * @throws Any error but "already locked" (e.g. an unwritable temp directory, {@link
 * UnsafeObjectError}); then neither is held.
 * @internal
 */
export function tryNamespaceLock(options: NamespaceLockOptions): Release | undefined {
  const rx = rxFlockOf(options);
  let rxTaken = false;
  try {
    rxTaken = tryOnce(rx, options.existing);
  } finally {
    if (!rxTaken) letGo(rx);
  }
  if (!rxTaken) return undefined;
  const wool = woolFlockOf(options);
  let taken = false;
  try {
    taken = tryOnce(wool, options.existing);
  } finally {
    if (!taken) {
      letGo(wool);
      letGo(rx);
    }
  }
  return taken ? bothReleased(rx, wool) : undefined;
}

/**
 * The intent record: the first 16 bytes of woolrx's lock file, naming (by
 * its 16 UUID bytes) the worker whose block the lock holder is creating, or
 * freeing and unlinking; zeros when none. A holder killed in between leaves
 * it behind, and the next holder reclaims the orphan block.
 */
const INTENT_SIZE = 16;
const NO_INTENT = Buffer.alloc(INTENT_SIZE);

/**
 * Reads the intent record through a descriptor of woolrx's lock file.
 * @param fd The descriptor.
 * @param into Where to read it (16 bytes).
 * @returns `into`, holding the worker's 16 UUID bytes, or `undefined` when no intent is recorded.
 * @internal
 */
export function readIntent(fd: number, into: Buffer = Buffer.alloc(INTENT_SIZE)): Buffer | undefined {
  return preadSync(fd, into, 0, INTENT_SIZE, 0) < INTENT_SIZE || into.equals(NO_INTENT) ? undefined : into;
}

/**
 * Records (under the lock) the worker whose block is about to be created or removed.
 * @param fd A descriptor of woolrx's lock file.
 * @param uid The worker's 16 UUID bytes.
 * @internal
 */
export function writeIntent(fd: number, uid: Buffer): void {
  pwriteSync(fd, uid, 0, INTENT_SIZE, 0);
}

/**
 * Clears the intent record (under the lock).
 * @param fd A descriptor of woolrx's lock file.
 * @internal
 */
export function clearIntent(fd: number): void {
  pwriteSync(fd, NO_INTENT, 0, INTENT_SIZE, 0);
}

/**
 * Removes woolrx's lock directory once no woolrx process uses the
 * namespace: takes woolrx's lock without waiting and, if there is no
 * journal beside it (journals are removed when unused) and no intent
 * record is pending (see {@link readIntent}), unlinks the lock file
 * while holding it (woolrx peers re-check its path after locking); then
 * removes the directory if it is empty. A no-op while anyone holds the
 * lock or uses the namespace. For the last one out, after releasing, and
 * for a publisher whose attempts all timed out.
 * @param names The lock's names.
 * @internal
 */
export function removeLockParent(
  names: Pick<NamespaceLockOptions, 'lockDirPath' | 'rxLockPath'> & { readonly journalPath: string },
): void {
  if (existsSync(names.rxLockPath) && !existsSync(names.journalPath)) {
    const flock = new FileLock(names.rxLockPath);
    try {
      const fd = flock.tryLock() ? flock.fd : undefined;
      if (fd !== undefined && !existsSync(names.journalPath) && readIntent(fd) === undefined)
        unlinkSync(names.rxLockPath);
    } catch {
      // Gone meanwhile, or not ours: leave it.
    } finally {
      flock.close();
    }
  }
  try {
    rmdirSync(names.lockDirPath);
  } catch {
    // Held again already, in use, or gone.
  }
}

/**
 * Retries `held` without blocking the event loop until `deadline`: next
 * turns of the loop a few times, then 1, 2, 4 ... `maxDelay` ms. With
 * `announce`, says it waits while it does ({@link FileLock.announce}).
 */
async function acquireOne(
  held: Held,
  options: NamespaceLockOptions,
  deadline: number,
  maxDelay: number,
  announce = false,
): Promise<void> {
  try {
    for (let attempt = 0; ; attempt += 1) {
      if (tryOnce(held, options.existing)) return;
      if (announce) held.flock.announce(true);
      const left = deadline - performance.now();
      if (left <= 0) throw new LockTimeoutError(options.namespace, options.lockTimeout);
      if (attempt < 8) await yieldToLoop();
      else await sleep(Math.min(retryDelay(attempt - 8, 1, maxDelay), left));
    }
  } finally {
    if (announce) held.flock.announce(false);
  }
}

/**
 * Takes the namespace lock: woolrx's lock (an exclusive `flock(2)` on
 * `/dev/shm/woolrx-lock-<short_hash(ns)>/lock`), then, holding it, wool's
 * lock (an exclusive `flock(2)` on
 * `<realpath(tmpdir)>/wool-lock-<short_hash(ns)>`), so that woolrx and wool publishers exclude each other. Both are
 * kernel locks: a holder that dies (even `kill -9`) releases them at once.
 * Never blocks the event loop: both are tried without waiting, with a short
 * asynchronous backoff, and together bounded by `lockTimeout`. Neither file
 * is used when it is a symbolic link, another user's, or writable by others.
 *
 * Callers run their whole read-modify-write synchronously between this
 * promise resolving and calling the release function.
 *
 * @param options The lock to take.
 * @returns A release function (synchronous, idempotent): releases wool's lock, then woolrx's.
 * @throws {LockTimeoutError} When either lock stays busy until `lockTimeout` ms have passed (then neither is held).
 * @throws {UnsafeObjectError} When a lock file or directory is not safe to use.
 * @internal
 */
export async function acquireNamespaceLock(options: NamespaceLockOptions): Promise<Release> {
  const deadline = performance.now() + options.lockTimeout;
  const rx = rxFlockOf(options);
  try {
    // Holders keep the lock for tens to hundreds of microseconds (up to a
    // millisecond for a burst: see LockHolding, which stops
    // keeping it once a waiter announces itself).
    await acquireOne(rx, options, deadline, 20, true);
  } catch (error) {
    letGo(rx);
    throw error;
  }
  const wool = woolFlockOf(options);
  try {
    // wool holds its flock for microseconds to milliseconds.
    await acquireOne(wool, options, deadline, 4);
  } catch (error) {
    // Timed out or failed: neither lock is kept.
    letGo(wool);
    letGo(rx);
    throw error;
  }
  return bothReleased(rx, wool);
}

/**
 * Whether a woolrx writer holds the namespace lock now: one non-blocking
 * shared `flock(2)` on woolrx's lock file, let go at once (the file is
 * opened and closed around it, never created). Every woolrx change — a
 * slot written, then its journal record appended — runs under that lock,
 * so while it is free no change is half done: a journal record the segment
 * does not show then cannot be explained by a record still to come.
 * A subscriber asks only about a record that stayed unexplained for a
 * while, never per event.
 * @example
 * if (!writerBusy(names.rxLockPath)) skipUnexplainedRecord();
 * @param rxLockPath woolrx's lock file (`LocalNames.rxLockPath`).
 * @returns `false` also when it cannot tell: no lock file (no woolrx
 * writer ever took it, or the last one out removed it), one that is not
 * safe to open, or no `flock` addon on this platform.
 * @internal
 */
export function writerBusy(rxLockPath: string): boolean {
  let fd: number | undefined;
  try {
    loadFlock();
    fd = openSafe(rxLockPath, constants.O_RDONLY).fd;
    // Closing the descriptor releases the shared lock taken here.
    return !flock(fd, 'shnb');
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * One writer's namespace lock, kept open between sections: woolrx's lock
 * file and wool's, each a {@link FileLock} re-validated at each
 * acquisition, and the intent record in woolrx's lock file (see
 * {@link readIntent}), written once per change that creates or removes a
 * block and cleared when the lock is released.
 * @internal
 */
export class NamespaceLock {
  readonly #rx: FileLock;
  readonly #wool: FileLock;
  readonly #options: NamespaceLockOptions;
  readonly #intent = Buffer.alloc(INTENT_SIZE);
  /** An intent record is written (or was found) and not cleared yet. */
  #intended = false;

  /**
   * @param options The lock files, the namespace and the timeout.
   */
  constructor(options: Omit<NamespaceLockOptions, 'rxFlock' | 'woolFlock' | 'existing'>) {
    this.#rx = new FileLock(options.rxLockPath, options.lockDirPath);
    this.#wool = new FileLock(options.lockPath);
    this.#options = { ...options, rxFlock: this.#rx, woolFlock: this.#wool };
  }

  /**
   * Takes the lock (see {@link acquireNamespaceLock}).
   * @returns Its release, which first clears the intent record if one is written.
   */
  async acquire(): Promise<() => void> {
    const unlock = await acquireNamespaceLock(this.#options);
    return () => {
      this.#clearIntent();
      unlock();
    };
  }

  /** @returns Whether another woolrx publisher says it waits for the lock ({@link FileLock.waited}). */
  waited(): boolean {
    return this.#rx.waited();
  }

  /**
   * Records (under the lock) which worker's block the holder is about to
   * create, or to free and unlink. A holder killed in between (after
   * creating a block, before taking its slot; after freeing a slot, before
   * unlinking its block) leaves the record behind, and the next holder
   * reclaims the orphan block ({@link NamespaceLock.takeIntent}).
   *
   * The record is cleared when the lock is released, not after each change:
   * a burst under a kept lock writes it once per change, and clears it
   * once. A record left by a completed change is harmless to whoever finds
   * it: the block of a completed add is in a slot, so it is kept; that of a
   * completed withdrawal is gone already.
   * @param uid The worker's 16 UUID bytes.
   */
  intend(uid: Buffer): void {
    const fd = this.#rx.fd;
    if (fd === undefined) return;
    writeIntent(fd, uid);
    this.#intended = true;
  }

  /**
   * Under a lock just taken: the intent record a holder that died mid-way
   * left, if any (cleared when this holder releases the lock).
   * @returns The worker's 16 UUID bytes (valid until the next call), or `undefined`.
   */
  takeIntent(): Buffer | undefined {
    const fd = this.#rx.fd;
    const intent = fd === undefined ? undefined : readIntent(fd, this.#intent);
    if (intent !== undefined) this.#intended = true;
    return intent;
  }

  /** Closes both lock files (releasing the lock if held). */
  close(): void {
    this.#wool.close();
    this.#rx.close();
  }

  /** Never throws: a record left is the next holder's to recover. */
  #clearIntent(): void {
    const fd = this.#rx.fd;
    if (!this.#intended || fd === undefined) return;
    this.#intended = false;
    try {
      clearIntent(fd);
    } catch {
      // Left for the next holder, which recovers it.
    }
  }
}
