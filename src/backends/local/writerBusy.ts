import { closeSync, constants } from 'node:fs';
import { flock, loadFlock } from './flockAddon.js';
import { openSafe } from './openSafe.js';

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
