import { closeSync, constants, fstatSync, openSync, statSync } from 'node:fs';
import { requireOptional } from '../requireOptional.js';

/** The part of `fs-ext-extra-prebuilt` (a native addon with prebuilt binaries) used here. */
interface FsExt {
  /** `flock(2)` on a descriptor; `'exnb'` never blocks (a lock held elsewhere throws `EAGAIN`). */
  flockSync(fd: number, flags: 'sh' | 'ex' | 'shnb' | 'exnb' | 'un'): unknown;
}

/** The addon, loaded on first use: `woolrx/local` loads without it; a lock then fails with a `MissingDependencyError`. */
function fsExt(): FsExt {
  return requireOptional<FsExt>('fs-ext-extra-prebuilt', 'woolrx/local');
}

/** How wool (and the test peer) opens its lock file: read-write, created on demand, mode 0600. */
const OPEN_FLAGS = constants.O_RDWR | constants.O_CREAT;
const OPEN_MODE = 0o600;

/** Re-opens after finding the path unlinked or replaced, at most this often per attempt. */
const REOPENS = 4;

/**
 * wool's namespace lock: an exclusive `flock(2)` on
 * `<realpath(tmpdir)>/wool-lock-<short_hash(ns)>`, taken without ever
 * blocking (`LOCK_EX | LOCK_NB`; the caller retries asynchronously).
 * `flock(2)` comes from the optional native addon `fs-ext-extra-prebuilt`
 * (prebuilt binaries, no compiler needed), loaded on the first `tryLock`.
 *
 * The descriptor may stay open between acquisitions (a publisher keeps one),
 * so every successful `flock` is checked against the path: if the file was
 * unlinked or replaced since it was opened (woolrx's last one out removes
 * it, holding the lock), the lock is on an orphaned inode that nobody else
 * will ever contend for, so it is dropped and the path opened again.
 * @internal
 */
export class WoolFlock {
  /** The lock file. */
  readonly path: string;
  #fd: number | undefined;
  /** Device and inode of the file `#fd` is open on (fixed for the descriptor's life). */
  #dev = 0;
  #ino = 0;
  #locked = false;

  /** @param path The lock file (`LocalNames.lockPath`). */
  constructor(path: string) {
    this.path = path;
  }

  /** `true` while this holds the lock. */
  get locked(): boolean {
    return this.#locked;
  }

  /**
   * Tries once to take the lock, without blocking.
   * @returns `true` if taken, `false` if another process (or descriptor) holds it.
   * @throws An I/O error other than "busy" (e.g. an unwritable temp directory).
   * @throws {MissingDependencyError} When `fs-ext-extra-prebuilt` is not installed or does not load.
   */
  tryLock(): boolean {
    const addon = fsExt(); // before opening anything: a missing addon leaves no descriptor behind
    if (this.#locked) throw new Error(`wool lock ${this.path} is already held by this descriptor`);
    for (let reopen = 0; reopen <= REOPENS; reopen += 1) {
      if (this.#fd === undefined) {
        this.#fd = openSync(this.path, OPEN_FLAGS, OPEN_MODE);
        const opened = fstatSync(this.#fd);
        this.#dev = opened.dev;
        this.#ino = opened.ino;
      }
      const fd = this.#fd;
      try {
        addon.flockSync(fd, 'exnb');
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'EAGAIN' || code === 'EWOULDBLOCK' || code === 'EINTR') return false;
        throw error;
      }
      // While we keep the descriptor open its inode cannot be reused, so an
      // equal (dev, ino) under the path means the very file we locked.
      const current = statSync(this.path, { throwIfNoEntry: false });
      if (current !== undefined && current.ino === this.#ino && current.dev === this.#dev) {
        this.#locked = true;
        return true;
      }
      // Unlinked (or replaced) since we opened it: that lock excludes nobody.
      this.#drop();
    }
    return false;
  }

  /** Releases the lock (the descriptor stays open for the next `tryLock`). No-op if not held. */
  unlock(): void {
    if (!this.#locked) return;
    this.#locked = false;
    if (this.#fd === undefined) return;
    try {
      fsExt().flockSync(this.#fd, 'un');
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
