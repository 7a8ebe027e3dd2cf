// Shared by the memory row's plain-Node.js children (memoryFloorProcess.mjs,
// memorySameWorkProcess.mjs): their memory after a full GC, a pause, and
// another (run with --expose-gc; without it, no collection is forced).
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * @returns {Promise<{ rss: number, live: number }>} RSS, and live memory (V8 heap used plus buffers), in bytes.
 */
export async function settledMemory() {
  globalThis.gc?.();
  await sleep(200);
  globalThis.gc?.();
  const usage = process.memoryUsage();
  return { rss: usage.rss, live: usage.heapUsed + usage.arrayBuffers };
}
