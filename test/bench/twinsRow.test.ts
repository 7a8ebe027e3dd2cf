// The twins row (bench/local/bench.ts benchLocalTwins): two real woolrx subscriber processes, the same
// code, watching the same paced adds of one real publisher process at once.
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { describe, it } from 'node:test';
import { benchLocalTwins } from '../../bench/local/bench.js';

const ours = (dir: string): string[] =>
  readdirSync(dir).filter((name) => name.startsWith('woolrx-') || name.startsWith('wool-'));

describe('the twins row', () => {
  it('measures both subscribers on the same adds, the cheaper first, and the dearer over the cheaper', async () => {
    const before = { shm: ours('/dev/shm'), tmp: ours(tmpdir()) };
    // Rejects unless both subscribers saw every one of the 40 timed adds.
    const { runs, cpu_spread, p50_spread } = await benchLocalTwins({ workers: 40, runs: 2, warmup: 80 });
    assert.equal(runs.length, 2);
    for (const { cpu_us_per_event: cpu, p50_us: p50 } of runs) {
      assert.ok(cpu[0] > 0 && cpu[0] <= cpu[1], `CPU per event of both, the cheaper first (${cpu.join(', ')})`);
      assert.ok(p50[0] > 0 && p50[0] <= p50[1], `p50 of both, the lower first (${p50.join(', ')})`);
    }
    const ratios = runs.map((r) => r.cpu_us_per_event[1] / r.cpu_us_per_event[0]).sort((a, b) => a - b);
    assert.equal(cpu_spread.min, Math.round((ratios[0] ?? 0) * 100) / 100, 'the spread is of the runs’ ratios');
    assert.ok(cpu_spread.min >= 1 && p50_spread.min >= 1, 'the dearer over the cheaper');
    assert.deepEqual({ shm: ours('/dev/shm'), tmp: ours(tmpdir()) }, before, 'the namespaces are removed');
  });
});
