import { randomBytes } from 'node:crypto';
import { closeSync, constants, fstatSync, mkdirSync, openSync, writeSync } from 'node:fs';
import type { LocalNames } from './types.js';

let counter = 0;
/** `woolrx:<pid>:<salt>:` then a 9-digit counter, padded to 40 bytes; rewritten in place. */
const marker = Buffer.alloc(40, ' ');
const counterAt = marker.write(`woolrx:${process.pid}:${randomBytes(4).toString('hex')}:`, 'latin1');
const open = new Map<string, number>();

/**
 * Ensures the notification directory exists (mode 0700).
 * @param names The namespace's names.
 * @internal
 */
export function ensureNotifyDir(names: LocalNames): void {
  mkdirSync(names.notifyDir, { recursive: true, mode: 0o700 });
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
 * @param names The namespace's names.
 * @param verify Check that the descriptor kept open still names the file
 *   (the last one out may have removed it): needed only when the segment
 *   may have been removed since the last touch.
 * @internal
 */
export function touchNotify(names: LocalNames, verify = true): void {
  counter = (counter + 1) % 1e9;
  marker.write(String(counter).padStart(9, '0'), counterAt, 'latin1');
  // One descriptor per notification file stays open; it is replaced once the
  // file was unlinked (nlink 0: the last one out removed it).
  let fd = open.get(names.notifyPath);
  if (fd !== undefined && verify && fstatSync(fd).nlink === 0) {
    closeSync(fd);
    open.delete(names.notifyPath);
    fd = undefined;
  }
  if (fd === undefined) {
    try {
      fd = openSync(names.notifyPath, constants.O_WRONLY | constants.O_CREAT, 0o600);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      ensureNotifyDir(names);
      fd = openSync(names.notifyPath, constants.O_WRONLY | constants.O_CREAT, 0o600);
    }
    open.set(names.notifyPath, fd);
  }
  writeSync(fd, marker, 0, marker.length, 0);
}

/**
 * Closes the descriptor {@link touchNotify} keeps for a namespace.
 * @param names The namespace's names.
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
