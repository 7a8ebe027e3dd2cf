import { performance, PerformanceObserver } from 'node:perf_hooks';

/**
 * Counts this process's garbage collections in a window: a bench child
 * counts those of its timed phase, which land in the tail of the latencies
 * measured (a scavenge stops the process for milliseconds on a small VM).
 * Collections are matched by their start time, so one reported late (the
 * observer is called asynchronously) still counts: read the figures a turn
 * of the event loop or more after `stop()`.
 * @returns `start()` and `stop()` (the window), and the collections in it:
 * how many, and their total duration in ms.
 */
export function gcCounter(): { start(): void; stop(): void; readonly count: number; readonly ms: number } {
  let from = Number.POSITIVE_INFINITY;
  let to = Number.POSITIVE_INFINITY;
  const seen: { startTime: number; duration: number }[] = [];
  new PerformanceObserver((list) => {
    for (const { startTime, duration } of list.getEntries()) if (startTime >= from) seen.push({ startTime, duration });
  }).observe({ entryTypes: ['gc'] });
  const inWindow = (): { startTime: number; duration: number }[] => seen.filter((gc) => gc.startTime >= from && gc.startTime <= to);
  return {
    start() {
      from = performance.now();
      to = Number.POSITIVE_INFINITY;
      seen.length = 0;
    },
    stop() {
      to = performance.now();
    },
    get count() {
      return inWindow().length;
    },
    get ms() {
      return Math.round(inWindow().reduce((sum, gc) => sum + gc.duration, 0) * 10) / 10;
    },
  };
}
