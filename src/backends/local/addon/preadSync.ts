import { readSync } from 'node:fs';
import { errnoError } from './errnoError.js';
import type { NativeAddon } from './loadAddon.js';
import { optionalAddon } from './optionalAddon.js';

/** The addon's `pread`; `null` where no addon loads (then `fs.readSync`); `undefined` until first asked. */
let native: NativeAddon['pread'] | null | undefined;

/**
 * `pread(2)`: what `fs.readSync(fd, into, offset, length, position)` does,
 * through woolrx's addon where it loads (the same system call without the
 * argument checks and objects Node.js makes for each: a subscriber makes
 * several per change), through `fs.readSync` elsewhere.
 * @param fd An open descriptor.
 * @param into Where the bytes go.
 * @param offset The first byte of `into` to fill.
 * @param length How many bytes to read at most (`offset + length` within `into`).
 * @param position Where in the file to read.
 * @returns The bytes read (fewer than `length` at the end of the file).
 * @throws A `TypeError` for a range outside `into`; an `Error` with `code`, `errno` and `syscall: 'read'`
 * as `fs.readSync`'s for a failed read.
 * @internal
 */
export function preadSync(fd: number, into: Uint8Array, offset: number, length: number, position: number): number {
  if (native === undefined) native = optionalAddon()?.pread ?? null;
  if (native === null) return readSync(fd, into, offset, length, position);
  const read = native(fd, into, offset, length, position);
  if (read < 0) throw errnoError(-read, 'read');
  return read;
}
