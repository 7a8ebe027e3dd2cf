import { randomBytes } from 'node:crypto';
import { closeSync, constants, mkdirSync, openSync, writeSync } from 'node:fs';
import type { LocalNames } from './types.js';

const PREFIX = 'woolrx';
let counter = 0;
const salt = randomBytes(4).toString('hex');

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
 * The bytes written are a fresh marker, so a woolrx subscriber can tell a
 * woolrx publish (marker changed: its block writes were announced on
 * `/dev/shm` too) from a wool touch (marker unchanged: look at every block).
 *
 * @param names The namespace's names.
 * @internal
 */
export function touchNotify(names: LocalNames): void {
  counter = (counter + 1) % 1e9;
  const marker = Buffer.from(`${PREFIX}:${process.pid}:${salt}:${counter}`.padEnd(40, ' '), 'latin1');
  let fd: number;
  try {
    fd = openSync(names.notifyPath, constants.O_WRONLY | constants.O_CREAT, 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    ensureNotifyDir(names);
    fd = openSync(names.notifyPath, constants.O_WRONLY | constants.O_CREAT, 0o600);
  }
  try {
    writeSync(fd, marker, 0, marker.length, 0);
  } finally {
    closeSync(fd);
  }
}
