import { randomBytes } from 'node:crypto';
import { closeSync, constants, fstatSync, writeSync } from 'node:fs';
import { ensureSafeDir } from './ensureSafeDir.js';
import { openSafe } from './openSafe.js';
import type { LocalNames } from './types.js';

let counter = 0;
/** `woolrx:<pid>:<salt>:` then a 9-digit counter, padded to 40 bytes; rewritten in place. */
const marker = Buffer.alloc(40, ' ');
const counterAt = marker.write(`woolrx:${process.pid}:${randomBytes(4).toString('hex')}:`, 'latin1');
const open = new Map<string, number>();

/**
 * Ensures the notification directory exists (mode 0700) and is safe: not a
 * symbolic link, this user's, writable by nobody else.
 * @param names The namespace's names.
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
 * @param names The namespace's names.
 * @param verify Check that the descriptor kept open still names the file
 *   (the last one out may have removed it): needed only when the segment
 *   may have been removed since the last touch.
 * @internal
 */
export function touchNotify(names: LocalNames, verify = true): void {
  counter = (counter + 1) % 1e9;
  marker.write(String(counter).padStart(9, '0'), counterAt, 'latin1');
  writeSync(openNotify(names, verify), marker, 0, marker.length, 0);
}

/**
 * The descriptor {@link touchNotify} writes through, opened (creating the
 * file and its directory) and checked if not open yet — the directory and
 * the file this user's, writable by nobody else, no symbolic link — once
 * per descriptor, never per touch. Publishers call it before their first
 * change, so that an unsafe notification file refuses the publish before
 * anything is written.
 * @param names The namespace's names.
 * @param verify Check that the descriptor kept open still names the file.
 * @returns The descriptor.
 * @throws {UnsafeObjectError} When the directory or the file is not safe.
 * @internal
 */
export function openNotify(names: LocalNames, verify = true): number {
  // One descriptor per notification file stays open; it is replaced once the
  // file was unlinked (nlink 0: the last one out removed it).
  let fd = open.get(names.notifyPath);
  if (fd !== undefined && verify && fstatSync(fd).nlink === 0) {
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
