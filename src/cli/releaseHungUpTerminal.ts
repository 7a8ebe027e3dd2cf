import { closeSync, openSync } from 'node:fs';
import { isatty } from 'node:tty';

/**
 * Points each standard descriptor that was a terminal at start-up and no
 * longer is one (the terminal hung up: tmux killed, window closed) at
 * `/dev/null`. Node restores the terminal's settings at exit with
 * `tcsetattr`, which fails with `EIO` on a hung-up terminal; Node 20 (and
 * any Node that still checks that call) then aborts — SIGABRT, often followed
 * by SIGSEGV in its crash handler — after everything else went well. Node
 * skips a descriptor that no longer names the file it saw at start-up, so
 * one reopened on `/dev/null` is left alone. A live terminal is not
 * touched. Call it from the `'exit'` event.
 *
 * @example
 * const terminals = [0, 1, 2].filter((fd) => isatty(fd));
 * process.on('exit', () => releaseHungUpTerminal(terminals));
 *
 * @param terminals The descriptors (0, 1, 2) that were terminals at start-up.
 * @returns The descriptors released.
 */
export function releaseHungUpTerminal(terminals: readonly number[]): number[] {
  const released: number[] = [];
  for (const fd of terminals) {
    // isatty asks the terminal (TCGETS), which fails once it has hung up.
    if (isatty(fd)) continue;
    try {
      closeSync(fd);
    } catch {
      continue; // already closed: Node skips it too
    }
    // The lowest free descriptor is the one just closed.
    const reopened = openSync('/dev/null', fd === 0 ? 'r' : 'w');
    if (reopened !== fd) closeSync(reopened);
    released.push(fd);
  }
  return released;
}
