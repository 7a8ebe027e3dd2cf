/**
 * Runs a scavenge (a minor GC: the young generation only) just before a
 * child's timed phase, so that every run starts it with an empty young
 * generation.
 *
 * Why: a scavenge stops the process for 3-12 ms on the project's VM, and a
 * timed phase of 1,000 adds lasts ~1.5 s, so whether one lands in it decides
 * a run's p99 (its 10th worst latency). Without this it is decided by the
 * warm-up: how full the young generation is when the timed phase starts,
 * and how large V8 has grown it, a heuristic driven by how much survived
 * earlier collections. Measured 2026-12-03, 15 runs per tree, same harness:
 * the subscriber of bd8e490 had grown its young generation to 32 MiB during
 * the warm-up and collected in none of its timed phases; the subscriber of
 * 1db6975, whose collections promote less, stayed at 16 MiB and collected in
 * every one (its p99 +12 %, its CPU per event +13 %, from that alone).
 * Collections caused by the measured work itself — a timed phase allocating
 * more than the young generation holds — still happen, and are counted.
 * Unlike a full GC (see bench.ts), a scavenge flushes no compiled code.
 */
export function emptyYoungGeneration(): void {
  (globalThis as { gc?: (options: { type: 'minor' }) => void }).gc?.({ type: 'minor' });
}
