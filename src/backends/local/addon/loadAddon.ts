import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { nodeRequire } from '../../nodeRequire.js';
import { FlockUnavailableError } from './FlockUnavailableError.js';
import { libcFlavour } from './libcFlavour.js';

/** `pread(2)` or `pwrite(2)` of `length` bytes at `offset` in `bytes`, at `position` in the file. */
type PositionedIo = (
  this: void,
  fd: number,
  bytes: Uint8Array,
  offset: number,
  length: number,
  position: number,
) => number;

/** What `native/addon.c` exports. */
export interface NativeAddon {
  /** 0, or the errno. */
  flock(fd: number, operation: number): number;
  /** 0 or 1 (query), 0 (share, release), or the negated errno. */
  ofdlock(fd: number, operation: number, offset: number): number;
  /** The bytes read, or the negated errno (a plain function: called apart from the addon's object). */
  readonly pread: PositionedIo;
  /** The bytes written, or the negated errno (a plain function: called apart from the addon's object). */
  readonly pwrite: PositionedIo;
  /** 0 with `[dev, ino, nlink, size, mode, uid]` in `into`, or the negated errno (a plain function, as `pread`). */
  readonly statx: (this: void, fd: number, path: string | null, into: Float64Array) => number;
}

/** The binaries `npm run build` makes (scripts/build/prebuilds.mjs), by `<platform>-<arch>` and libc. */
const SHIPPED = 'linux-x64 (glibc, musl), linux-arm64 (glibc)';

let native: NativeAddon | undefined;

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

/**
 * Loads woolrx's prebuilt addon for this platform, once (`native/addon.c`:
 * one binary per platform for every Node.js and Electron version).
 * @returns The addon.
 * @throws {FlockUnavailableError} When no prebuilt addon loads here.
 * @internal
 */
export function loadAddon(): NativeAddon {
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
  const module = { exports: {} as Partial<NativeAddon> };
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
  const loaded = module.exports;
  if (
    typeof loaded.flock !== 'function' ||
    typeof loaded.ofdlock !== 'function' ||
    typeof loaded.pread !== 'function' ||
    typeof loaded.pwrite !== 'function' ||
    typeof loaded.statx !== 'function'
  ) {
    throw new FlockUnavailableError(
      label,
      `${file} is not this woolrx's addon (an older build?): run \`npm run build\``,
    );
  }
  native = loaded as NativeAddon;
  return native;
}
