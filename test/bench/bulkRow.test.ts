// The bulk row itself (bench/local/bulk.ts benchLocalBulk): real publisher processes into a real namespace,
// a real subscriber that sees every worker, and the CPU the publishers report, split by thread.
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { describe, it } from 'node:test';
import { benchLocalBulk, benchLocalBulkFloor } from '../../bench/local/bulk.js';

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

  it('warms each publisher up with more workers than the namespace holds, a batch at a time, as its floor', async () => {
    const before = { shm: ours('/dev/shm'), tmp: ours(tmpdir()) };
    // Capacity 2 × 40: 100 warm-up workers each, all registered at once, would not fit (the publisher
    // process would fail, and the run with it).
    const run = await benchLocalBulk({ publishers: 2, perPublisher: 40, warmup: 100 });
    assert.ok(run.seen_ms > 0 && run.publisher_cpu_us_per_add > 0, `timed (${JSON.stringify(run)})`);
    const floor = await benchLocalBulkFloor({ publishers: 2, perPublisher: 40, warmup: 100 });
    assert.ok(floor.seen_ms > 0 && floor.cpu_us_per_add > 0, `the floor timed (${JSON.stringify(floor)})`);
    assert.deepEqual({ shm: ours('/dev/shm'), tmp: ours(tmpdir()) }, before, 'the namespaces are removed');
  });
});
