// The bulk row itself (bench/local/bulk.ts benchLocalBulk): real publisher processes into a real namespace,
// a real subscriber that sees every worker, and the CPU the publishers report, split by thread.
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { describe, it } from 'node:test';
import { benchLocalBulk } from '../../bench/local/bulk.js';

const ours = (dir: string): string[] =>
  readdirSync(dir).filter((name) => name.startsWith('woolrx-') || name.startsWith('wool-'));

describe('the bulk row', () => {
  it('times two publishers until the subscriber saw all, and reports their CPU, main threads apart', async () => {
    const before = { shm: ours('/dev/shm'), tmp: ours(tmpdir()) };
    // Rejects unless the subscriber saw all 2 × 150 workers.
    const run = await benchLocalBulk({ publishers: 2, perPublisher: 150 });
    assert.ok(run.seen_ms > 0 && run.published_ms > 0, `timed (${JSON.stringify(run)})`);
    assert.ok(run.subscriber_cpu_us_per_change > 0, 'the subscriber CPU reported');
    assert.ok(run.publisher_main_cpu_us_per_add > 0, `main threads' CPU reported (${JSON.stringify(run)})`);
    // Two clocks (getrusage, schedstat) that tick apart: the main threads' share is not above the whole
    // by more than a tick's worth.
    assert.ok(
      run.publisher_main_cpu_us_per_add <= run.publisher_cpu_us_per_add * 1.05 + 50,
      `main threads within every thread's CPU (${JSON.stringify(run)})`,
    );
    assert.deepEqual({ shm: ours('/dev/shm'), tmp: ours(tmpdir()) }, before, 'the namespace is removed');
  });
});
