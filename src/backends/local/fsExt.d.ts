/**
 * Types of the part of `fs-ext` (a native addon) the local backend uses:
 * `flock(2)` on a file descriptor, synchronously. With `'exnb'` it never
 * blocks: a lock held elsewhere throws an error with code `EAGAIN`.
 * @internal
 */
declare module 'fs-ext' {
  interface FsExt {
    flockSync(fd: number, flags: 'sh' | 'ex' | 'shnb' | 'exnb' | 'un'): void;
  }
  const fsExt: FsExt;
  export default fsExt;
}
