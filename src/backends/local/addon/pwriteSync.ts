import { writeSync } from 'node:fs';
import { errnoError } from './errnoError.js';
import type { NativeAddon } from './loadAddon.js';
import { optionalAddon } from './optionalAddon.js';

/** The addon's `pwrite`; `null` where no addon loads (then `fs.writeSync`); `undefined` until first asked. */
let native: NativeAddon['pwrite'] | null | undefined;

/**
 * `pwrite(2)`: what `fs.writeSync(fd, from, offset, length, position)` does,
 * through woolrx's addon where it loads (the same system call without the
 * argument checks and objects Node.js makes for each: a publisher makes
 * several per change), through `fs.writeSync` elsewhere.
 * @param fd An open descriptor.
 * @param from Where the bytes come from.
 * @param offset The first byte of `from` to write.
 * @param length How many bytes to write (`offset + length` within `from`).
 * @param position Where in the file to write.
 * @returns The bytes written.
 * @throws A `TypeError` for a range outside `from`; an `Error` with `code`, `errno` and `syscall: 'write'`
 * as `fs.writeSync`'s for a failed write.
 * @internal
 */
export function pwriteSync(fd: number, from: Uint8Array, offset: number, length: number, position: number): number {
  if (native === undefined) native = optionalAddon()?.pwrite ?? null;
  if (native === null) return writeSync(fd, from, offset, length, position);
  const written = native(fd, from, offset, length, position);
  if (written < 0) throw errnoError(-written, 'write');
  return written;
}
