import { fstatSync, statSync, type Stats } from 'node:fs';
import { constants } from 'node:os';
import { errnoError } from './errnoError.js';
import type { NativeAddon } from './loadAddon.js';
import { optionalAddon } from './optionalAddon.js';

/** Where {@link statIds} puts each figure. */
export const STAT_DEV = 0;
/** @see STAT_DEV */
export const STAT_INO = 1;
/** @see STAT_DEV */
export const STAT_NLINK = 2;
/** @see STAT_DEV */
export const STAT_SIZE = 3;
/** @see STAT_DEV (with the file type bits, as `Stats.mode`) */
export const STAT_MODE = 4;
/** @see STAT_DEV (the owner) */
export const STAT_UID = 5;

/** The addon's `statx`; `null` where no addon loads (then `fs`); `undefined` until first asked. */
let native: NativeAddon['statx'] | null | undefined;

/** What every call answers in (the local backend reads the figures at once, and runs on one thread). */
const figures = new Float64Array(6);

function copy(stats: Stats, into: Float64Array): void {
  into[STAT_DEV] = stats.dev;
  into[STAT_INO] = stats.ino;
  into[STAT_NLINK] = stats.nlink;
  into[STAT_SIZE] = stats.size;
  into[STAT_MODE] = stats.mode;
  into[STAT_UID] = stats.uid;
}

/**
 * The figures of a file the local backend compares and checks — device,
 * inode, link count, size, mode and owner — by path (following links) or by descriptor: what
 * `fs.statSync` / `fs.fstatSync` give, through woolrx's addon where it loads
 * (the same system call without a `Stats` object per call: a publish makes
 * several), through `fs` elsewhere.
 * @param file A path, or an open descriptor.
 * @returns `[STAT_DEV]`, `[STAT_INO]`, `[STAT_NLINK]`, `[STAT_SIZE]`, `[STAT_MODE]`, `[STAT_UID]` in one
 * array that the next call overwrites; `undefined` when a path names nothing
 * (`ENOENT`: as `throwIfNoEntry: false`).
 * @throws An `Error` with `code`, `errno`, `syscall` (and `path`) as `fs`'s for any other failure.
 * @internal
 */
export function statIds(file: string | number): Readonly<Float64Array> | undefined {
  if (native === undefined) native = optionalAddon()?.statx ?? null;
  if (native === null) {
    const stats = typeof file === 'number' ? fstatSync(file) : statSync(file, { throwIfNoEntry: false });
    if (stats === undefined) return undefined;
    copy(stats, figures);
    return figures;
  }
  const status = typeof file === 'number' ? native(file, null, figures) : native(-1, file, figures);
  if (status === 0) return figures;
  if (typeof file === 'string' && status === -constants.errno.ENOENT) return undefined;
  if (typeof file === 'number') throw errnoError(-status, 'fstat');
  const error = errnoError(-status, 'stat', `stat '${file}'`);
  error.path = file;
  throw error;
}
