// The memory row (bench/local/bulk.ts benchLocalMemory, benchLocalMemoryFloor): a real publisher
// registers workers, a real subscriber (the built package, plain node) holds them, then the same-work
// floor reads the same namespace bare and decodes every block with the public decodeWorker.
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { describe, it } from 'node:test';
import { benchLocalMemory, benchLocalMemoryFloor, benchLocalMemoryGrowth } from '../../bench/local/bulk.js';

const ours = (dir: string): string[] =>
  readdirSync(dir).filter((name) => name.startsWith('woolrx-') || name.startsWith('wool-'));

describe('the memory row', () => {
  it('measures the subscriber, then the same-work floor on the same namespace, and removes it', async () => {
    const before = { shm: ours('/dev/shm'), tmp: ours(tmpdir()) };
    // Rejects unless the subscriber saw, and the same-work floor read and decoded, all 60 workers.
    const run = await benchLocalMemory({ workers: 60 });
    for (const key of ['rss_mb', 'before_rss_mb', 'same_work_own_mb', 'same_work_codec_mb'] as const) {
      assert.ok(Number.isFinite(run[key]), `${key} measured (${JSON.stringify(run)})`);
    }
    assert.ok(run.rss_mb > 0 && run.before_rss_mb > 0, `RSS measured (${JSON.stringify(run)})`);
    // 60 decoded workers are live in the floor's heap: some kilobytes, never a negative figure.
    assert.ok(run.same_work_live_mb >= 0, `the same-work floor's live memory (${JSON.stringify(run)})`);
    // The young generation's pages are part of the RSS: present in every process (a young generation
    // never shrinks below its initial size), never more than the RSS itself.
    for (const key of ['young_mb', 'same_work_young_mb'] as const) {
      assert.ok(Number.isFinite(run[key]) && Math.abs(run[key]) < run.rss_mb, `${key} (${JSON.stringify(run)})`);
    }
    const floor = await benchLocalMemoryFloor({ workers: 60 });
    assert.ok(floor.rxjs_mb > floor.bare_mb, `RxJS weighs something (${JSON.stringify(floor)})`);
    assert.ok(Number.isFinite(floor.peer_young_mb), `the peer's young generation (${JSON.stringify(floor)})`);
    assert.deepEqual({ shm: ours('/dev/shm'), tmp: ours(tmpdir()) }, before, 'the namespace is removed');
  });

  it('measures what the second half of the workers adds, the subscriber told of them as they come, and the peer', async () => {
    const before = { shm: ours('/dev/shm'), tmp: ours(tmpdir()) };
    // Rejects unless the subscriber saw 30 workers at sync and all 60 after the second step, and the
    // peer held 60 (bench/local/memoryProcess.mjs, memoryFloorProcess.mjs).
    const run = await benchLocalMemoryGrowth({ workers: 60 });
    assert.equal(run.step, 30);
    for (const key of ['own_mb', 'live_mb', 'young_mb', 'peer_own_mb', 'peer_live_mb', 'peer_young_mb'] as const) {
      assert.ok(Number.isFinite(run[key]) && Math.abs(run[key]) < 100, `${key} measured (${JSON.stringify(run)})`);
    }
    assert.deepEqual({ shm: ours('/dev/shm'), tmp: ours(tmpdir()) }, before, 'the namespace is removed');
  });
});
