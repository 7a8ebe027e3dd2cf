import { randomBytes } from 'node:crypto';
import { closeSync, constants, watch, type FSWatcher } from 'node:fs';
import { STAT_INO, STAT_NLINK, statIds } from '../addon/statIds.js';
import { pwriteSync } from '../addon/pwriteSync.js';
import { basename } from 'node:path';
import { ensureSafeDir, openSafe } from '../safe-fs/safeFs.js';
import type { LocalNames } from '../names/localNames.js';

let counter = 0;
/** `woolrx:<pid>:<salt>:` then a 9-digit counter, padded to 40 bytes; rewritten in place. */
const marker = Buffer.alloc(40, ' ');
const counterAt = marker.write(`woolrx:${process.pid}:${randomBytes(4).toString('hex')}:`, 'latin1');
/**
 * One descriptor per notification file for the whole process: every writer of the namespace here
 * touches through it.
 */
const open = new Map<string, number>();

/**
 * Ensures the notification directory exists (mode 0700) and is safe: not a
 * symbolic link, this user's, writable by nobody else.
 * @throws {UnsafeObjectError} When it is not safe.
 * @internal
 */
export function ensureNotifyDir(names: LocalNames): void {
  ensureSafeDir(names.notifyDir);
}

/**
 * Wakes every subscriber of the namespace, wool's and ours: writes
 * `<tmp>/wool-<namespace>/notify` (creating it and its directory on demand),
 * which changes its mtime like wool's touch and raises a directory event.
 *
 * The bytes written (`woolrx:<pid>:<salt>:<counter>`) only help whoever
 * debugs; subscribers tell woolrx's notifications from wool's by matching
 * them with journal records (see JournalFollower).
 *
 * @param verify Check that the descriptor kept open still names the file
 *   (the last one out may have removed it): needed only when the segment
 *   may have been removed since the last touch.
 * @internal
 */
export function touchNotify(names: LocalNames, verify = true): void {
  counter = (counter + 1) % 1e9;
  marker.write(String(counter).padStart(9, '0'), counterAt, 'latin1');
  pwriteSync(openNotify(names, verify), marker, 0, marker.length, 0);
}

/**
 * The descriptor {@link touchNotify} writes through, opened (creating the
 * file and its directory) and checked if not open yet — the directory and
 * the file this user's, writable by nobody else, no symbolic link — once
 * per descriptor, never per touch. Publishers call it before their first
 * change, so that an unsafe notification file refuses the publish before
 * anything is written.
 * @param verify Check that the descriptor kept open still names the file.
 * @returns The descriptor.
 * @throws {UnsafeObjectError} When the directory or the file is not safe.
 * @internal
 */
export function openNotify(names: LocalNames, verify = true): number {
  // One descriptor per notification file stays open; it is replaced once the
  // file was unlinked (nlink 0: the last one out removed it).
  let fd = open.get(names.notifyPath);
  if (fd !== undefined && verify && statIds(fd)?.[STAT_NLINK] === 0) {
    closeSync(fd);
    open.delete(names.notifyPath);
    fd = undefined;
  }
  if (fd === undefined) {
    ensureNotifyDir(names);
    fd = openSafe(names.notifyPath, constants.O_WRONLY | constants.O_CREAT, 0o600).fd;
    open.set(names.notifyPath, fd);
  }
  return fd;
}

/**
 * Closes the descriptor {@link touchNotify} keeps for a namespace.
 * @internal
 */
export function closeNotify(names: LocalNames): void {
  const fd = open.get(names.notifyPath);
  if (fd === undefined) return;
  open.delete(names.notifyPath);
  try {
    closeSync(fd);
  } catch {
    // Already closed.
  }
}

/**
 * Closes a watcher and removes its listeners. A closed `fs.watch` watcher
 * is still referenced by its native handle object until the next full GC:
 * its listeners would keep the whole subscription alive as long, so that
 * every subscribe/unsubscribe cycle would promote its objects to the old
 * generation.
 */
function release(watcher: FSWatcher | undefined): void {
  watcher?.close();
  watcher?.removeAllListeners();
}

/** What woke a local subscriber's scan, taken by the scan from its {@link NotifyWatcher}. @internal */
export interface Wake {
  /** Events on `notify` (see JournalFollower#match). */
  readonly events: number;
  /** The poll timer fired. */
  readonly poll: boolean;
  /**
   * Something in the directory was renamed, or the watch failed: check the directory is still the
   * one watched ({@link NotifyWatcher.recheckDir}).
   */
  readonly dirChanged: boolean;
  /**
   * `notify` was created or removed (a last one out, a new segment), or the poll timer fired: check
   * the segment is still the one read.
   */
  readonly segmentMoved: boolean;
}

/**
 * When a local subscriber looks: the wake-ups of one {@link LocalWatch}.
 *
 * It watches the notification directory (every publisher, wool's and
 * woolrx's, touches `notify` after each change, once it is done) and the
 * notification file itself (see {@link NotifyWatcher#watchFile}), runs the
 * fallback poll timer, and schedules one scan per turn of the event loop
 * (`setImmediate`), however many wake-ups came. The scan takes what woke it
 * as a {@link Wake} ({@link NotifyWatcher.take}).
 *
 * A lone notification is scanned at once instead (`process.nextTick`, still
 * inside the watcher's callback): when its watch says it is `prompt` (every
 * change read so far was announced, and by woolrx, so this one announces
 * news). The turn's other wake-ups still come to one scan: the ones read
 * with it find the watch no longer prompt (the scan read records ahead of
 * their notifications, or found a notification no record explains) and
 * wait for the turn's end, as every other wake-up does.
 *
 * The touch of `notify` is the last thing a woolrx publish does (after the
 * lock is released), so the wake-up it raises finds the publisher's work
 * done. The journal (tmpfs) is deliberately not watched: its record and
 * head writes would wake subscribers once or twice more per publish, in the
 * middle of the publisher's critical section (see "Performance" in
 * docs/backends/local.md).
 * @internal
 */
export class NotifyWatcher {
  #events = 0;
  #poll = false;
  #dirChanged = false;
  #segmentMoved = false;

  readonly #names: LocalNames;
  readonly #pollInterval: number;
  readonly #scan: () => void;
  readonly #prompt: () => boolean;
  #scheduled = false;
  #closed = false;
  #dirWatcher: FSWatcher | undefined;
  #fileWatcher: FSWatcher | undefined;
  #dirIno = -1;
  /**
   * The watched directory itself was removed (or moved): its watch is dead,
   * whatever inode the path has now — a file system such as ext4 gives a
   * directory made again right away the inode number just freed.
   */
  #dirGone = false;
  #timer: NodeJS.Timeout | undefined;

  /**
   * @param pollInterval Fallback poll period in ms; `0`: no timer.
   * @param scan Runs once per scheduled turn.
   * @param prompt Whether a notification now may be scanned at once (see the class).
   */
  constructor(names: LocalNames, pollInterval: number, scan: () => void, prompt: () => boolean = () => false) {
    this.#names = names;
    this.#pollInterval = pollInterval;
    this.#scan = scan;
    this.#prompt = prompt;
  }

  /** Starts watching (creating the notification directory if needed) and the poll timer. */
  start(): void {
    this.#watchDir();
    if (this.#pollInterval > 0) {
      this.#timer = setInterval(() => {
        this.#poll = true;
        this.#dirChanged = true;
        this.#segmentMoved = true;
        this.schedule();
      }, this.#pollInterval);
    }
  }

  /** Runs the scan on the next turn of the event loop (once, however often called before it). */
  schedule(): void {
    if (this.#scheduled || this.#closed) return;
    this.#scheduled = true;
    setImmediate(this.#onImmediate);
  }

  /**
   * Runs the scan as soon as the current callback returns (once, however
   * often called before it): for a notification while the watch is prompt.
   */
  #scheduleNow(): void {
    if (this.#scheduled || this.#closed) return;
    this.#scheduled = true;
    process.nextTick(this.#onImmediate);
  }

  /**
   * What woke the scan since it last asked; the next record starts empty.
   * @returns The wake-ups.
   */
  take(): Wake {
    const wake: Wake = {
      events: this.#events,
      poll: this.#poll,
      dirChanged: this.#dirChanged,
      segmentMoved: this.#segmentMoved,
    };
    this.#events = 0;
    this.#poll = false;
    this.#dirChanged = false;
    this.#segmentMoved = false;
    return wake;
  }

  /**
   * Re-watches the directory if it was replaced since it was watched (what
   * {@link Wake.dirChanged} asks for); answers that request.
   * @returns `true` when it was replaced: changes may have been missed.
   */
  recheckDir(): boolean {
    this.#dirChanged = false;
    if (!this.#dirGone && statIds(this.#names.notifyDir)?.[STAT_INO] === this.#dirIno) {
      return false;
    }
    this.#watchDir();
    return true;
  }

  /** Stops watching, the timer and any scheduled scan. Idempotent. */
  close(): void {
    this.#closed = true;
    release(this.#dirWatcher);
    this.#dirWatcher = undefined;
    release(this.#fileWatcher);
    this.#fileWatcher = undefined;
    if (this.#timer !== undefined) clearInterval(this.#timer);
  }

  readonly #onImmediate = (): void => {
    this.#scheduled = false;
    if (!this.#closed) this.#scan();
  };

  #watchDir(): void {
    ensureNotifyDir(this.#names);
    release(this.#dirWatcher);
    this.#dirIno = statIds(this.#names.notifyDir)?.[STAT_INO] ?? -1;
    this.#dirGone = false;
    const self = basename(this.#names.notifyDir);
    this.#dirWatcher = watch(this.#names.notifyDir, { persistent: true }, (type, filename) => {
      if (filename === 'notify') {
        this.#events += 1;
        if (type === 'rename') {
          this.#segmentMoved = true;
          this.#watchFile();
        } else if (this.#prompt()) {
          this.#scheduleNow();
          return;
        }
      } else if (type === 'rename') {
        this.#dirChanged = true;
        // The directory's own removal is reported under its own name.
        if (filename === self) this.#dirGone = true;
      }
      this.schedule();
    });
    this.#dirWatcher.on('error', () => {
      this.#dirChanged = true;
      this.schedule();
    });
    this.#watchFile();
  }

  /**
   * Watches the notification file itself, besides its directory: each
   * change of the file then queues two inotify events (the directory's,
   * then the file's), so that no two directory events are ever adjacent in
   * the queue, where inotify would merge them (see JournalFollower#match).
   * The file's own events are not needed otherwise. Re-done whenever the
   * file is created or removed.
   */
  #watchFile(): void {
    release(this.#fileWatcher);
    this.#fileWatcher = undefined;
    try {
      this.#fileWatcher = watch(this.#names.notifyPath, { persistent: false }, () => undefined);
      this.#fileWatcher.on('error', () => undefined);
    } catch {
      // Not there (yet): its creation raises a directory event.
    }
  }
}
