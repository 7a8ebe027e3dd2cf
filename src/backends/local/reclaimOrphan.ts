import { closeSync, constants, readSync } from 'node:fs';
import { join } from 'node:path';
import { blockName } from './blockName.js';
import { FREE_SLOT, SLOT_SIZE } from './layout.js';
import { openSafe } from './openSafe.js';
import { slotUid } from './slotUid.js';
import type { LocalNames } from './types.js';
import { unlinkQuietly } from './unlinkQuietly.js';

/**
 * For the last one out, under the namespace lock, once the segment is gone:
 * a holder that died in the middle of a section may have left an intent
 * record in woolrx's lock file (see NamespaceWriter.intend); with no segment
 * left, no slot can hold that worker, so its block is an orphan: unlinked.
 * @param names The namespace's names.
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
    const intent = Buffer.alloc(SLOT_SIZE);
    if (readSync(fd, intent, 0, SLOT_SIZE, 0) < SLOT_SIZE || intent.equals(FREE_SLOT)) return undefined;
    const uid = slotUid(intent, 0);
    unlinkQuietly(join(names.shmDir, blockName(uid)));
    return uid;
  } finally {
    closeSync(fd);
  }
}
