import { mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The files of a bare floor run (see bareNamespace). */
export interface BareNamespace {
  /** The directory in /dev/shm: woolrx's lock, the segment, the journal, the blocks. */
  readonly dir: string;
  /** wool's lock file, in the temp directory like wool's. */
  readonly woolLock: string;
  /** The notification file (its directory is watched). */
  readonly notify: string;
  /** Removes it all. */
  remove(): void;
}

/**
 * Makes the files the bare floors' processes (bench/local/bareProcess.ts,
 * bench/local/bareSubscriberProcess.ts) share, of the kinds and sizes a
 * woolrx namespace has: a segment of `capacity` slots and a journal of 512
 * records of a 1 KiB block's payload in a fresh directory of /dev/shm, and
 * wool's lock and the notification file in a fresh directory of the temp
 * directory.
 * @example
 * const ns = bareNamespace(1_000);
 * try { ... } finally { ns.remove(); }
 * @param capacity The segment's slots.
 * @returns Their paths, and how to remove them.
 */
export function bareNamespace(capacity: number): BareNamespace {
  const dir = mkdtempSync('/dev/shm/woolrx-bench-bare-');
  const tmp = mkdtempSync(join(tmpdir(), 'woolrx-bench-bare-'));
  try {
    writeFileSync(join(dir, 'segment'), Buffer.alloc(16 + 16 * capacity), { mode: 0o600 });
    writeFileSync(join(dir, 'journal'), Buffer.alloc(64), { mode: 0o600 });
    truncateSync(join(dir, 'journal'), 64 + (40 + 1020) * 512);
    writeFileSync(join(tmp, 'notify'), '', { mode: 0o600 });
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    rmSync(tmp, { recursive: true, force: true });
    throw error;
  }
  return {
    dir,
    woolLock: join(tmp, 'lock'),
    notify: join(tmp, 'notify'),
    remove() {
      rmSync(dir, { recursive: true, force: true });
      rmSync(tmp, { recursive: true, force: true });
    },
  };
}
