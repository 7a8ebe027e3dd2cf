import { join } from 'node:path';

import { shortHash } from './shortHash.js';

/** Where POSIX shared-memory objects live on Linux. */
export const SHM_DIR = '/dev/shm';

/** Every name and path one namespace uses. @internal */
export interface LocalNames {
  readonly namespace: string;
  /** `short_hash(namespace)`. */
  readonly segmentName: string;
  /** `/dev/shm/<segmentName>`. */
  readonly segmentPath: string;
  /** Directory holding the POSIX shared-memory objects (`/dev/shm`). */
  readonly shmDir: string;
  /**
   * `<tmp>/wool-lock-<short_hash(namespace)>`: wool's lock file. woolrx
   * holds an exclusive `flock(2)` on it (inside its own lock) across every
   * read-modify-write, as wool does.
   */
  readonly lockPath: string;
  /**
   * `/dev/shm/woolrx-lock-<short_hash(namespace)>`: woolrx's lock directory
   * (mode 0700), holding its lock file and journal. On tmpfs, beside the
   * segment; one level down so that its writes raise no event for
   * `/dev/shm` watchers.
   */
  readonly lockDirPath: string;
  /**
   * `/dev/shm/woolrx-lock-<short_hash(namespace)>/lock`: woolrx's lock, an
   * exclusive `flock(2)` taken before wool's (a kernel lock: released at
   * once when its holder dies). Its first 16 bytes name the worker whose
   * block a critical section is creating or removing (zeros otherwise), so
   * that the next holder reclaims the block of a holder that died mid-way.
   */
  readonly rxLockPath: string;
  /** `/dev/shm/woolrx-lock-<short_hash(namespace)>/journal`: woolrx's change journal (see Journal). */
  readonly journalPath: string;
  /** `<tmp>/wool-<namespace>`. */
  readonly notifyDir: string;
  /** `<tmp>/wool-<namespace>/notify`. */
  readonly notifyPath: string;
  /** `<tmp>/wool-<namespace>/.woolrx-segment`: inode of the segment woolrx created (woolrx unlinks only those). */
  readonly ownerPath: string;
}

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
