// Shared by the memory row's plain-Node.js children (memoryFloorProcess.mjs,
// memorySameWorkProcess.mjs): their memory after a full GC, a pause, and
// another (run with --expose-gc; without it, no collection is forced).
import { setTimeout as sleep } from 'node:timers/promises';
import { getHeapSpaceStatistics } from 'node:v8';

/**
 * The physical pages of V8's young generation (new space and new large
 * object space): after a full GC they hold next to nothing, yet stay as
 * large as the last burst of allocation made them.
 * @returns Bytes.
 */
export function youngGeneration() {
  let bytes = 0;
  for (const space of getHeapSpaceStatistics()) {
    if (space.space_name.startsWith('new_')) bytes += space.physical_space_size;
  }
  return bytes;
}

/**
 * @returns {Promise<{ rss: number, live: number, young: number }>} RSS, live memory (V8 heap used plus
 * buffers), and the young generation's pages ({@link youngGeneration}), in bytes.
 */
export async function settledMemory() {
  globalThis.gc?.();
  await sleep(200);
  globalThis.gc?.();
  const usage = process.memoryUsage();
  return { rss: usage.rss, live: usage.heapUsed + usage.arrayBuffers, young: youngGeneration() };
}
