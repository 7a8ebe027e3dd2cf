import { join } from 'node:path';
import { SHM_DIR } from './layout.js';
import { shortHash } from './shortHash.js';
import type { LocalNames } from './types.js';

/**
 * Every name one namespace uses, exactly as wool spells them.
 *
 * @param namespace A validated namespace.
 * @param tmpdir The realpath of the temp directory.
 * @returns The names.
 * @internal
 */
export function localNames(namespace: string, tmpdir: string): LocalNames {
  const segmentName = shortHash(namespace);
  const notifyDir = join(tmpdir, `wool-${namespace}`);
  return {
    namespace,
    segmentName,
    segmentPath: join(SHM_DIR, segmentName),
    shmDir: SHM_DIR,
    lockPath: join(tmpdir, `wool-lock-${segmentName}`),
    lockDirPath: join(SHM_DIR, `woolrx-lock-${segmentName}`),
    rxLockPath: join(SHM_DIR, `woolrx-lock-${segmentName}`, 'lock'),
    journalPath: join(SHM_DIR, `woolrx-lock-${segmentName}`, 'journal'),
    notifyDir,
    notifyPath: join(notifyDir, 'notify'),
    ownerPath: join(notifyDir, '.woolrx-segment'),
  };
}
