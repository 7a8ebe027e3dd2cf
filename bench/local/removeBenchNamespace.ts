import { closeSync, openSync, readSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { blockPath } from '../../src/backends/local/block/blockFile.js';
import { localNames } from '../../src/backends/local/names/localNames.js';
import { SegmentFile } from '../../src/backends/local/segment/SegmentFile.js';
import { SLOT_SIZE, slotIsFree, slotUid } from '../../src/backends/local/segment/slotTable.js';

/**
 * Removes whatever a bench run whose processes failed left of a local
 * namespace: the blocks its slots and its intent record name, the segment,
 * woolrx's lock folder (lock and journal), wool's lock file and the
 * notification folder. A run that succeeds leaves nothing (its publishers
 * withdraw their workers and the last one out cleans up); one whose
 * publisher died mid-run would otherwise leave its blocks in /dev/shm.
 * Call it once every process of the run has exited.
 * @param namespace The run's namespace.
 */
export function removeBenchNamespace(namespace: string): void {
  const names = localNames(namespace, tmpdir());
  const uids: string[] = [];
  const segment = SegmentFile.open(names.segmentPath, false);
  if (segment !== undefined) {
    try {
      const capacity = segment.capacity() ?? 0;
      const table = Buffer.alloc(SLOT_SIZE * capacity);
      segment.readTable(table, capacity);
      for (let offset = 0; offset < table.length; offset += SLOT_SIZE) {
        if (!slotIsFree(table, offset)) uids.push(slotUid(table, offset));
      }
    } finally {
      segment.close();
    }
  }
  // A block created by a publisher that died before slotting it.
  try {
    const fd = openSync(names.rxLockPath, 'r');
    try {
      const intent = Buffer.alloc(SLOT_SIZE);
      if (readSync(fd, intent, 0, SLOT_SIZE, 0) === SLOT_SIZE && !slotIsFree(intent, 0)) {
        uids.push(slotUid(intent, 0));
      }
    } finally {
      closeSync(fd);
    }
  } catch {
    // No lock file: no intent record.
  }
  for (const uid of uids) rmSync(blockPath(names.shmDir, uid), { force: true });
  for (const path of [names.segmentPath, names.lockDirPath, names.lockPath, names.notifyDir]) {
    rmSync(path, { recursive: true, force: true });
  }
}
