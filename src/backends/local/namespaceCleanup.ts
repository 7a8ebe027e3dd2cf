import { closeSync, constants, lstatSync, rmdirSync, statSync, writeSync } from 'node:fs';
import { preadSync } from './addon/preadSync.js';
import { assertSafe, openSafe, unlinkQuietly } from './safe-fs/safeFs.js';
import { Journal } from './journal/Journal.js';
import { SegmentFile } from './segment/SegmentFile.js';
import { closeNotify, ensureNotifyDir } from './notify/notify.js';
import type { LocalSettings } from './types.js';
import type { LocalNames } from './names/localNames.js';
import { dirname } from 'node:path';
import { blockPath } from './block/blockFile.js';
import { slotUid } from './segment/slotTable.js';
import {
  acquireNamespaceLock,
  readIntent,
  removeLockParent,
  tryNamespaceLock,
  type NamespaceLockOptions,
} from './lock/namespaceLock.js';
import { tmpdirError } from './TmpdirUnusableError.js';

/**
 * Records that woolrx created the segment with this inode: only such
 * segments are ever unlinked by woolrx (a wool-created one belongs to its
 * wool owner). Call under the namespace lock.
 * @param ino The new segment's inode.
 * @internal
 */
export function recordSegmentOwner(names: LocalNames, ino: number): void {
  ensureNotifyDir(names);
  const { fd } = openSafe(names.ownerPath, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC, 0o600);
  try {
    writeSync(fd, String(ino));
  } finally {
    closeSync(fd);
  }
}

/** Whether a directory is there and safe to use (see assertSafe). */
function safeDir(path: string): boolean {
  try {
    const stats = lstatSync(path);
    assertSafe(path, 'directory', stats.mode, stats.uid);
    return true;
  } catch {
    return false;
  }
}

function ownedIno(names: LocalNames): number | undefined {
  try {
    const { fd } = openSafe(names.ownerPath, constants.O_RDONLY);
    try {
      const bytes = Buffer.alloc(24);
      const ino = Number(bytes.toString('latin1', 0, preadSync(fd, bytes, 0, bytes.length, 0)));
      return Number.isSafeInteger(ino) ? ino : undefined;
    } finally {
      closeSync(fd);
    }
  } catch {
    return undefined;
  }
}

/**
 * Whether the segment must stay: it exists and woolrx did not create it,
 * or some slot is taken. Otherwise unlinks it (if any).
 */
function segmentStays(names: LocalNames): boolean {
  const stat = statSync(names.segmentPath, { throwIfNoEntry: false });
  if (stat === undefined) return false;
  if (ownedIno(names) !== stat.ino) return true;
  const segment = SegmentFile.open(names.segmentPath, false);
  if (segment === undefined) return true;
  try {
    const capacity = segment.capacity();
    if (capacity === undefined || segment.ino !== stat.ino || segment.anySlotTaken(capacity)) return true;
  } finally {
    segment.close();
  }
  unlinkQuietly(names.segmentPath);
  return false;
}

/**
 * "Last one out": called under the namespace lock (woolrx's lock *and*
 * wool's flock) by a leaving publisher or subscriber, its own journal
 * closed. Unlinks the segment if woolrx created it and no slot is taken;
 * once there is no segment, removes woolrx's journal, the notification
 * file, the owner record, the directory (if nothing else is in it) and
 * wool's lock file. A segment holding workers, or created by wool, is left
 * alone — so it is never pulled from under a peer that still has workers
 * in it; woolrx's journal beside it is removed if no other woolrx process
 * has it open (wool, leaving last, would not remove it).
 *
 * The caller then releases the lock and calls `removeLockParent` (a no-op
 * unless the lock's directory is left empty).
 *
 * @returns `true` if the namespace is gone (no segment left).
 * @internal
 */
export function cleanupNamespace(names: LocalNames): boolean {
  if (segmentStays(names)) {
    Journal.removeIfUnused(names.journalPath);
    return false;
  }
  reclaimOrphan(names);
  unlinkQuietly(names.journalPath);
  closeNotify(names);
  // Nothing is removed from a notification directory that is not safe
  // (another user's, a symbolic link): woolrx never used it.
  const notifyDirSafe = safeDir(names.notifyDir);
  if (notifyDirSafe) {
    unlinkQuietly(names.ownerPath);
    unlinkQuietly(names.notifyPath);
  }
  // wool's lock file: we hold its flock (woolrx peers re-check the path after
  // their flock succeeds; wool does not — see docs/backends/local.md).
  unlinkQuietly(names.lockPath);
  // woolrx's lock file, held too (woolrx peers re-check its path likewise).
  unlinkQuietly(names.rxLockPath);
  try {
    if (notifyDirSafe) rmdirSync(names.notifyDir);
  } catch {
    // Not empty (someone else's file) or already gone: leave it.
  }
  return true;
}

/**
 * For the last one out, under the namespace lock, once the segment is gone:
 * a holder that died in the middle of a section may have left an intent
 * record in woolrx's lock file (see readIntent); with no segment
 * left, no slot can hold that worker, so its block is an orphan: unlinked.
 * @returns The uid whose orphan block was unlinked, if any.
 * @internal
 */
export function reclaimOrphan(names: LocalNames): string | undefined {
  let fd: number;
  try {
    fd = openSafe(names.rxLockPath, constants.O_RDONLY).fd;
  } catch {
    return undefined; // no lock file (nothing was ever left), or not ours
  }
  try {
    const intent = readIntent(fd);
    if (intent === undefined) return undefined;
    const uid = slotUid(intent, 0);
    unlinkQuietly(blockPath(names.shmDir, uid));
    return uid;
  } finally {
    closeSync(fd);
  }
}

/**
 * A leaving subscriber's "last one out": under the namespace lock, removes
 * what woolrx created for the namespace if nobody has a worker in it (see
 * {@link cleanupNamespace}). Tries the lock once, synchronously; when it is
 * busy, retries in the background without keeping the process alive, and
 * only through lock files that are still there: the holder may be leaving
 * last and remove them, and then there is nothing left to do. When taking
 * the lock fails (an unusable temp directory, say), the lock directory it
 * created is removed again.
 * @internal
 * @param settings Resolved options (the lock's timeout and staleness).
 * @param warn Reports a failure (the subscriber's `warning` diagnostic).
 */
export function leaveNamespace(
  names: LocalNames,
  settings: LocalSettings,
  warn: (message: string, error: unknown) => void,
): void {
  // Only what the lock needs, written out: an object spread of both would
  // allocate far more per call, much of it surviving a scavenge.
  const lock: NamespaceLockOptions = {
    namespace: names.namespace,
    lockPath: names.lockPath,
    rxLockPath: names.rxLockPath,
    lockDirPath: names.lockDirPath,
    lockTimeout: settings.lockTimeout,
  };
  const run = (release: () => void): void => {
    try {
      cleanupNamespace(names);
    } catch (error) {
      warn('Cleaning up the namespace failed', error);
    } finally {
      release();
    }
    // Empty once released if the journal went too (a no-op otherwise).
    removeLockParent(names);
  };
  try {
    const release = tryNamespaceLock(lock);
    if (release !== undefined) return run(release);
  } catch (error) {
    removeLockParent(names);
    return warn('Cleaning up the namespace failed', tmpdirError(dirname(names.lockPath), error) ?? error);
  }
  const timer = setTimeout(() => {
    acquireNamespaceLock({ ...lock, existing: true }).then(run, () => undefined);
  }, 5);
  timer.unref();
}
