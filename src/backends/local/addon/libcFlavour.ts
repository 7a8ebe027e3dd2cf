import { readFileSync } from 'node:fs';

/** `process.report` with `excludeNetwork` (Node ≥ 20.13; not in @types/node 20). */
type ProcessReport = typeof process.report & { excludeNetwork?: boolean };

/** The maps of this process (Linux). */
function readOwnMaps(): string {
  return readFileSync('/proc/self/maps', 'latin1');
}

/**
 * The C library this Node.js runs on, which picks the prebuilt addon:
 * `glibc` or `musl`.
 *
 * Told by the shared objects the process has mapped (`/proc/self/maps`:
 * musl's loader, or glibc's `libc.so.6`), which costs one small read —
 * where the process report, which says it too, builds a whole report (a
 * JavaScript stack, the heap, every handle: milliseconds, tens of them in a
 * busy process, at a process's first lock). Only when the maps do not tell
 * (unreadable, or neither library mapped) is the report asked, without its
 * network section: that would look up the peer of every open socket
 * synchronously, for the resolver's timeouts where no DNS server answers.
 * @example
 * const file = `woolrx-flock.${libcFlavour()}.node`;
 * @param readMaps Reads `/proc/self/maps` (a test gives its own).
 * @returns `glibc` or `musl`.
 * @internal
 */
export function libcFlavour(readMaps: () => string = readOwnMaps): 'glibc' | 'musl' {
  let maps = '';
  try {
    maps = readMaps();
  } catch {
    // No /proc: the report tells.
  }
  if (/\/ld-musl-[^/\s]*\.so/.test(maps)) return 'musl';
  if (/\/libc(?:\.so\.6|-2\.\d+\.so)\b/.test(maps)) return 'glibc';
  const report = process.report as ProcessReport;
  const excluded = report.excludeNetwork;
  report.excludeNetwork = true;
  try {
    const header = (report.getReport() as { header?: { glibcVersionRuntime?: string } }).header;
    return header?.glibcVersionRuntime === undefined ? 'musl' : 'glibc';
  } finally {
    report.excludeNetwork = excluded ?? false;
  }
}
