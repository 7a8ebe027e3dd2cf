import { readFileSync } from 'node:fs';

/**
 * CPU time the calling thread has used, in µs: the first field of
 * `/proc/thread-self/schedstat` (nanoseconds on a CPU). A bench child calls
 * it from its main thread: `process.cpuUsage()` counts every thread of the
 * process, V8's compiler and garbage-collector threads too, so the
 * difference between the two is what those used.
 * @returns The thread's CPU time, or `NaN` where /proc does not tell.
 */
export function threadCpuUs(): number {
  try {
    return Number(readFileSync('/proc/thread-self/schedstat', 'latin1').split(' ', 1)[0]) / 1e3;
  } catch {
    return Number.NaN;
  }
}
