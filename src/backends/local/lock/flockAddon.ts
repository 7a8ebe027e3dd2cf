import { constants } from 'node:os';
import { errnoError } from '../addon/errnoError.js';
import { loadAddon } from '../addon/loadAddon.js';

/** The operations of `flock(2)`, as `FileLock` and `Journal` use them (Linux values). */
export type FlockOperation = 'sh' | 'ex' | 'shnb' | 'exnb' | 'un';

const LOCK_SH = 1;
const LOCK_EX = 2;
const LOCK_NB = 4;
const LOCK_UN = 8;
/** EWOULDBLOCK (= EAGAIN on Linux): the lock is held elsewhere. */
const EWOULDBLOCK = constants.errno.EWOULDBLOCK ?? constants.errno.EAGAIN;
const OPERATIONS: Readonly<Record<FlockOperation, number>> = {
  sh: LOCK_SH,
  ex: LOCK_EX,
  shnb: LOCK_SH | LOCK_NB,
  exnb: LOCK_EX | LOCK_NB,
  un: LOCK_UN,
};

/**
 * Loads the `flock(2)` addon now (it is otherwise loaded on the first lock).
 * @throws {FlockUnavailableError} When no prebuilt addon loads here.
 * @internal
 */
export function loadFlock(): void {
  loadAddon();
}

/**
 * `flock(2)` on a descriptor, through woolrx's Node-API addon (one binary per
 * platform for every Node.js and Electron version: `native/addon.c`).
 * @param fd An open descriptor.
 * @param operation `'sh'`, `'ex'`, `'un'`, or `'shnb'`/`'exnb'` (never block).
 * @returns `true` when done; `false` when a non-blocking lock is held elsewhere (`EWOULDBLOCK`).
 * @throws {FlockUnavailableError} When no prebuilt addon loads here.
 * @throws An `Error` with `code` (`'EBADF'`, ...) for any other failure.
 * @internal
 */
export function flock(fd: number, operation: FlockOperation): boolean {
  const errno = loadAddon().flock(fd, OPERATIONS[operation]);
  if (errno === 0) return true;
  if (errno === EWOULDBLOCK) return false;
  throw errnoError(errno, 'flock', `flock(${fd}, ${operation})`);
}

/** What {@link ofdlock} does: ask whether another description holds the byte, share it, or release it. */
export type OfdOperation = 'query' | 'share' | 'release';

const OFD_OPERATIONS: Readonly<Record<OfdOperation, number>> = { query: 0, share: 1, release: 2 };

/**
 * A one-byte open-file-description lock (`fcntl` `F_OFD_*`), which on Linux
 * is independent of `flock(2)` on the same file; through woolrx's addon.
 * @param fd An open descriptor.
 * @param operation `'query'`: whether another open file description holds
 * the byte (shared or exclusive); `'share'`: take it shared, never waiting;
 * `'release'`: let it go.
 * @param offset The byte.
 * @returns For `'query'`, whether another holds it; otherwise `true`.
 * @throws {FlockUnavailableError} When no prebuilt addon loads here.
 * @throws An `Error` with `code` (`'EBADF'`, ...) for any failure.
 * @internal
 */
export function ofdlock(fd: number, operation: OfdOperation, offset: number): boolean {
  const answer = loadAddon().ofdlock(fd, OFD_OPERATIONS[operation], offset);
  if (answer >= 0) return operation !== 'query' || answer === 1;
  throw errnoError(-answer, 'fcntl', `fcntl(${fd}, F_OFD_*, ${operation} byte ${offset})`);
}
