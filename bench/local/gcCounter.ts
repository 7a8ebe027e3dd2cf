import { performance, PerformanceObserver } from 'node:perf_hooks';

/**
 * Counts this process's garbage collections in a window: a bench child
 * counts those of its timed phase, which land in the tail of the latencies
 * measured (a scavenge stops the process for milliseconds on a small VM).
 * Collections are matched by their start time, so one reported late (the
 * observer is called asynchronously) still counts: read `count` a turn of
 * the event loop or more after `stop()`.
 * @returns `start()` and `stop()` (the window), and how many collections
 * started in it.
 */
export function gcCounter(): { start(): void; stop(): void; readonly count: number } {
  let from = Number.POSITIVE_INFINITY;
  let to = Number.POSITIVE_INFINITY;
  const starts: number[] = [];
  new PerformanceObserver((list) => {
    for (const { startTime } of list.getEntries()) if (startTime >= from) starts.push(startTime);
  }).observe({ entryTypes: ['gc'] });
  return {
    start() {
      from = performance.now();
      to = Number.POSITIVE_INFINITY;
      starts.length = 0;
    },
    stop() {
      to = performance.now();
    },
    get count() {
      return starts.filter((at) => at >= from && at <= to).length;
    },
  };
}
