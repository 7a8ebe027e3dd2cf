/**
 * flock benchmark: the cost of the `flock(2)` calls `woolrx/local` makes, through
 * woolrx's own Node-API addon (native/addon.c, what ships) and through
 * `fs-ext-extra-prebuilt` (the NAN addon it replaced, a devDependency kept for
 * this comparison only), in the same process and the same run:
 *
 * - an uncontended `LOCK_EX|LOCK_NB` then `LOCK_UN` (a publish takes wool's
 *   and woolrx's locks once each);
 * - a contended `LOCK_EX|LOCK_NB` that fails with EWOULDBLOCK (a publisher
 *   retrying while another holds the namespace): woolrx's addon returns the
 *   errno, fs-ext throws an Error.
 *
 * Interleaved rounds (A B A B …) after a warm-up; each figure is the median
 * round, in ns per operation.
 */
import { closeSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { flock } from '../../src/backends/local/lock/flockAddon.js';

interface Row {
  name: string;
  value: number;
  unit: string;
}

interface FsExt {
  flockSync(fd: number, flags: 'exnb' | 'un'): unknown;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

/** ns per call of each op, in interleaved rounds. */
function nsPerOp(ops: ReadonlyArray<() => void>, iterations: number, rounds: number): number[] {
  for (const op of ops) for (let i = 0; i < iterations / 10; i++) op();
  const samples = ops.map((): number[] => []);
  for (let round = 0; round < rounds; round++) {
    ops.forEach((op, index) => {
      const start = performance.now();
      for (let i = 0; i < iterations; i++) op();
      samples[index]?.push(((performance.now() - start) * 1e6) / iterations);
    });
  }
  return samples.map(median);
}

/**
 * Runs the comparison.
 * @param options.iterations Operations per round.
 * @param options.rounds Rounds per implementation.
 * @returns The rows, ns per operation.
 */
export function benchFlock(options: { iterations?: number; rounds?: number } = {}): Row[] {
  const iterations = options.iterations ?? 100_000;
  const rounds = options.rounds ?? 9;
  const dir = mkdtempSync(join(tmpdir(), 'woolrx-bench-flock-'));
  const file = join(dir, 'lock');
  const fd = openSync(file, 'w+', 0o600);
  const holder = openSync(file, 'r+');
  const other = openSync(file, 'r+');
  let fsExt: FsExt | undefined;
  try {
    fsExt = createRequire(import.meta.url)('fs-ext-extra-prebuilt') as FsExt;
  } catch {
    fsExt = undefined;
  }
  try {
    const ours = {
      cycle: () => {
        flock(fd, 'exnb');
        flock(fd, 'un');
      },
      busy: () => {
        flock(other, 'exnb');
      },
    };
    const theirs =
      fsExt === undefined
        ? undefined
        : {
            cycle: () => {
              fsExt.flockSync(fd, 'exnb');
              fsExt.flockSync(fd, 'un');
            },
            busy: () => {
              try {
                fsExt.flockSync(other, 'exnb');
              } catch {
                // EWOULDBLOCK (EAGAIN): the lock is held through `holder`.
              }
            },
          };
    const [ourCycle, theirCycle] = nsPerOp(
      theirs === undefined ? [ours.cycle] : [ours.cycle, theirs.cycle],
      iterations,
      rounds,
    );
    if (!flock(holder, 'exnb')) throw new Error('bench: could not take the holder lock');
    const [ourBusy, theirBusy] = nsPerOp(
      theirs === undefined ? [ours.busy] : [ours.busy, theirs.busy],
      iterations / 4,
      rounds,
    );
    flock(holder, 'un');
    const rows: Row[] = [
      { name: 'woolrx addon: LOCK_EX|LOCK_NB + LOCK_UN, uncontended', value: ourCycle ?? Number.NaN, unit: 'ns' },
      { name: 'woolrx addon: LOCK_EX|LOCK_NB on a held lock (EWOULDBLOCK)', value: ourBusy ?? Number.NaN, unit: 'ns' },
    ];
    if (theirCycle !== undefined && theirBusy !== undefined) {
      rows.push(
        {
          name: 'fs-ext-extra-prebuilt (replaced): LOCK_EX|LOCK_NB + LOCK_UN, uncontended',
          value: theirCycle,
          unit: 'ns',
        },
        {
          name: 'fs-ext-extra-prebuilt (replaced): LOCK_EX|LOCK_NB on a held lock (throws)',
          value: theirBusy,
          unit: 'ns',
        },
      );
    }
    return rows;
  } finally {
    for (const descriptor of [fd, holder, other]) closeSync(descriptor);
    rmSync(dir, { recursive: true, force: true });
  }
}
