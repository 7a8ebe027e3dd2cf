import { existsSync, readFileSync } from 'node:fs';
import { constants } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { nodeRequire } from '../../nodeRequire.js';
import { FlockUnavailableError } from './FlockUnavailableError.js';
import { libcFlavour } from './libcFlavour.js';

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

/** What `native/flock.c` exports. */
interface NativeFlock {
  /** 0, or the errno. */
  flock(fd: number, operation: number): number;
  /** 0 or 1 (query), 0 (share, release), or the negated errno. */
  ofdlock(fd: number, operation: number, offset: number): number;
}

/** The binaries `npm run build` makes (scripts/build/prebuilds.mjs), by `<platform>-<arch>` and libc. */
const SHIPPED = 'linux-x64 (glibc, musl), linux-arm64 (glibc)';

let native: NativeFlock | undefined;

function isWoolrxRoot(dir: string): boolean {
  const file = join(dir, 'package.json');
  if (!existsSync(file)) return false;
  try {
    return (JSON.parse(readFileSync(file, 'utf8')) as { name?: unknown }).name === 'woolrx';
  } catch {
    return false;
  }
}

/**
 * woolrx's package directory: up from this module (the ESM and CJS builds,
 * and the sources in the repository), or — when an application bundled
 * woolrx, so that this module is the bundle — where the bundle's `require`
 * finds `woolrx/package.json` (the application's `node_modules`).
 */
function packageRoot(): string | undefined {
  const url = (import.meta as { url?: string }).url;
  if (url !== undefined && url.startsWith('file:')) {
    for (let dir = dirname(fileURLToPath(url)), up = 0; up < 6; up += 1, dir = dirname(dir)) {
      if (isWoolrxRoot(dir)) return dir;
    }
  }
  try {
    const resolver = nodeRequire();
    return resolver === undefined ? undefined : dirname(resolver.resolve('woolrx/package.json'));
  } catch {
    return undefined;
  }
}

/** Loads the prebuilt addon for this platform, once. */
function load(): NativeFlock {
  if (native !== undefined) return native;
  const platform = `${process.platform}-${process.arch}`;
  const flavour = process.platform === 'linux' ? libcFlavour() : 'glibc';
  const label = `${platform} (${flavour})`;
  const root = packageRoot();
  if (root === undefined) {
    throw new FlockUnavailableError(
      label,
      "woolrx's package directory was not found (a bundle without woolrx in node_modules): install woolrx beside " +
        'the bundle, or keep it external',
    );
  }
  const file = join(root, 'prebuilds', platform, `woolrx-flock.${flavour}.node`);
  if (!existsSync(file)) {
    throw new FlockUnavailableError(
      label,
      `no prebuilt addon for it (${file} is missing; woolrx ships ${SHIPPED}). Use the memory, lan or etcd ` +
        `backend here` +
        (existsSync(join(root, 'native')) ? ', or run `npm run build` in the repository' : ''),
    );
  }
  const module = { exports: {} as Partial<NativeFlock> };
  try {
    process.dlopen(module, file);
  } catch (error) {
    const reason = error instanceof Error ? error.message.split('\n')[0] : String(error);
    throw new FlockUnavailableError(
      label,
      `${file} did not load (${reason}); in Electron, unpack *.node files from the asar archive`,
      { cause: error },
    );
  }
  if (typeof module.exports.flock !== 'function' || typeof module.exports.ofdlock !== 'function') {
    throw new FlockUnavailableError(label, `${file} is not woolrx's flock addon`);
  }
  native = module.exports as NativeFlock;
  return native;
}

/**
 * Loads the `flock(2)` addon now (it is otherwise loaded on the first lock).
 * @throws {FlockUnavailableError} When no prebuilt addon loads here.
 * @internal
 */
export function loadFlock(): void {
  load();
}

/**
 * `flock(2)` on a descriptor, through woolrx's Node-API addon (one binary per
 * platform for every Node.js and Electron version: `native/flock.c`).
 * @param fd An open descriptor.
 * @param operation `'sh'`, `'ex'`, `'un'`, or `'shnb'`/`'exnb'` (never block).
 * @returns `true` when done; `false` when a non-blocking lock is held elsewhere (`EWOULDBLOCK`).
 * @throws {FlockUnavailableError} When no prebuilt addon loads here.
 * @throws An `Error` with `code` (`'EBADF'`, ...) for any other failure.
 * @internal
 */
export function flock(fd: number, operation: FlockOperation): boolean {
  const errno = load().flock(fd, OPERATIONS[operation]);
  if (errno === 0) return true;
  if (errno === EWOULDBLOCK) return false;
  const code = errnoName(errno);
  const error = new Error(`flock(${fd}, ${operation}) failed: ${code}`) as NodeJS.ErrnoException;
  error.code = code;
  error.errno = -errno;
  error.syscall = 'flock';
  throw error;
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
  const answer = load().ofdlock(fd, OFD_OPERATIONS[operation], offset);
  if (answer >= 0) return operation !== 'query' || answer === 1;
  const code = errnoName(-answer);
  const error = new Error(
    `fcntl(${fd}, F_OFD_*, ${operation} byte ${offset}) failed: ${code}`,
  ) as NodeJS.ErrnoException;
  error.code = code;
  error.errno = answer;
  error.syscall = 'fcntl';
  throw error;
}

function errnoName(errno: number): string {
  for (const [name, value] of Object.entries(constants.errno)) if (value === errno) return name;
  return `errno ${errno}`;
}
