// The bulk floor whose bare publishers retry a busy lock (bench/local/bareProcess.ts `retry`), as a woolrx
// publisher must: real contending processes, a real bare subscriber reading every change.
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { describe, it } from 'node:test';
import { benchLocalBulkFloor } from '../../bench/local/bulk.js';

const bare = (dir: string): string[] => readdirSync(dir).filter((name) => name.startsWith('woolrx-bench-bare-'));

describe('the bulk floor whose publishers retry a busy lock', () => {
  it('contending publishers each make every add, and the bare subscriber reads every change', async () => {
    const before = { shm: bare('/dev/shm'), tmp: bare(tmpdir()) };
    // Resolves only once the bare subscriber has read all 3 × 200 changes (bench/local/bareSubscriberProcess.ts).
    const run = await benchLocalBulkFloor({ publishers: 3, perPublisher: 200, wait: 'retry' });
    assert.ok(run.seen_ms > 0 && run.published_ms > 0, `timed (${JSON.stringify(run)})`);
    assert.ok(run.cpu_us_per_add > 0 && run.subscriber_cpu_us_per_change > 0, 'CPU reported');
    assert.ok(run.main_cpu_us_per_add > 0, `main threads' CPU reported (${run.main_cpu_us_per_add})`);
    assert.deepEqual({ shm: bare('/dev/shm'), tmp: bare(tmpdir()) }, before, 'its files are removed');
  });
});
