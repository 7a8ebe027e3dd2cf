import { closeSync, constants } from 'node:fs';
import { STAT_DEV, STAT_INO, statIds } from '../addon/statIds.js';
import { ensureSafeDir, openSafe } from '../safe-fs/safeFs.js';
import { flock, loadFlock, ofdlock } from './flockAddon.js';

/** How wool (and the test peer) opens its lock file: read-write, created on demand, mode 0600. */
const OPEN_FLAGS = constants.O_RDWR | constants.O_CREAT;
const OPEN_MODE = 0o600;

/** Re-opens after finding the path unlinked or replaced, at most this often per attempt. */
const REOPENS = 4;

/**
 * The byte of the lock file that descriptors waiting for the lock hold a
 * shared open-file-description lock on ({@link FileLock.announce}); past
 * woolrx's 16-byte intent record, and independent of the `flock(2)`.
 */
const WAITING_BYTE = 4096;

/**
 * One exclusive `flock(2)` on a lock file, taken without ever blocking
 * (`LOCK_EX | LOCK_NB`; the caller retries asynchronously): the namespace
 * lock is two of them, woolrx's lock file and then wool's
 * (`<realpath(tmpdir)>/wool-lock-<short_hash(ns)>`). `flock(2)` comes from
 * woolrx's own Node-API addon (prebuilt, no compiler needed;
 * `native/addon.c`), loaded on the first `tryLock`.
 *
 * The descriptor may stay open between acquisitions (a publisher keeps one),
 * so every successful `flock` is checked against the path: if the file was
 * unlinked or replaced since it was opened (woolrx's last one out removes
 * it, holding the lock), the lock is on an orphaned inode that nobody else
 * will ever contend for, so it is dropped and the path opened again.
 * @internal
 */
export class FileLock {
  /** The lock file. */
  readonly path: string;
  /** A directory of its own to create (0700) and check before opening, if any. */
  readonly #dir: string | undefined;
  /** Open the file only if it is there: never create it (or its directory). */
  readonly #existing: boolean;
  #fd: number | undefined;
  /** Device and inode of the file `#fd` is open on (fixed for the descriptor's life). */
  #dev = 0;
  #ino = 0;
  #locked = false;
  /** This descriptor holds {@link WAITING_BYTE} shared (it says it waits). */
  #announced = false;

  /**
   * @param path The lock file (`LocalNames.lockPath` or `LocalNames.rxLockPath`).
   * @param dir The lock file's own directory, created (0700) and checked
   *   when the file is opened; `undefined` for a file in a shared directory.
   * @param existing Lock the file only if it exists: a missing file (or
   *   directory) is not created, and {@link FileLock.tryLock} throws `ENOENT`.
   */
  constructor(path: string, dir?: string, existing = false) {
    this.path = path;
    this.#dir = dir;
    this.#existing = existing;
  }

  /** The open descriptor (while the lock is held, the locked file's). */
  get fd(): number | undefined {
    return this.#fd;
  }

  /** `true` while this holds the lock. */
  get locked(): boolean {
    return this.#locked;
  }

  /**
   * Tries once to take the lock, without blocking.
   * @returns `true` if taken, `false` if another process (or descriptor) holds it.
   * @throws An I/O error other than "busy" (e.g. an unwritable temp directory; `ENOENT` for a
   * missing file opened `existing`).
   * @throws {FlockUnavailableError} When no prebuilt flock addon loads on this platform.
   */
  tryLock(): boolean {
    loadFlock(); // before opening anything: a missing addon leaves no descriptor behind
    if (this.#locked) throw new Error(`lock ${this.path} is already held by this descriptor`);
    for (let reopen = 0; reopen <= REOPENS; reopen += 1) {
      if (this.#fd === undefined) {
        // Never through a symbolic link, never another user's file or one
        // others can write (the temp directory is shared).
        if (this.#dir !== undefined && !this.#existing) ensureSafeDir(this.#dir);
        const opened = openSafe(this.path, this.#existing ? constants.O_RDWR : OPEN_FLAGS, OPEN_MODE);
        this.#fd = opened.fd;
        this.#dev = opened.dev;
        this.#ino = opened.ino;
      }
      const fd = this.#fd;
      if (!flock(fd, 'exnb')) return false;
      // While we keep the descriptor open its inode cannot be reused, so an
      // equal (dev, ino) under the path means the very file we locked.
      const ids = statIds(this.path);
      if (ids !== undefined && ids[STAT_INO] === this.#ino && ids[STAT_DEV] === this.#dev) {
        this.#locked = true;
        return true;
      }
      // Unlinked (or replaced) since we opened it: that lock excludes nobody.
      this.#drop();
    }
    return false;
  }

  /**
   * Says that this descriptor waits for the lock, or no longer does: a
   * shared lock on a byte of the file apart from the `flock(2)` (an
   * open-file-description lock), which a holder sees with
   * {@link FileLock.waited}; released with the descriptor too, so a waiter
   * that dies stops saying it. A no-op without a descriptor (nothing opened
   * yet) and when already so.
   * @param waiting Whether it waits.
   */
  announce(waiting: boolean): void {
    const fd = this.#fd;
    if (fd === undefined || waiting === this.#announced) return;
    ofdlock(fd, waiting ? 'share' : 'release', WAITING_BYTE);
    this.#announced = waiting;
  }

  /**
   * Whether another descriptor (in any process) says it waits for this lock
   * ({@link FileLock.announce}). `false` without a descriptor.
   * @returns Whether someone waits.
   */
  waited(): boolean {
    const fd = this.#fd;
    return fd !== undefined && ofdlock(fd, 'query', WAITING_BYTE);
  }

  /** Releases the lock (the descriptor stays open for the next `tryLock`). No-op if not held. */
  unlock(): void {
    if (!this.#locked) return;
    this.#locked = false;
    if (this.#fd === undefined) return;
    try {
      flock(this.#fd, 'un');
    } catch {
      // Cannot fail on a valid descriptor; closing releases it anyway.
      this.#drop();
    }
  }

  /** Releases the lock if held and closes the descriptor. Idempotent. */
  close(): void {
    this.unlock();
    this.#drop();
  }

  #drop(): void {
    this.#locked = false;
    this.#announced = false;
    if (this.#fd === undefined) return;
    const fd = this.#fd;
    this.#fd = undefined;
    try {
      closeSync(fd); // also releases a flock held through it
    } catch {
      // Already closed.
    }
  }
}
