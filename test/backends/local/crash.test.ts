// kill -9 of busy publishers at random points: the
// namespace must not freeze (the next publish succeeds within 1 s), the
// dead publishers' workers are dropped within the liveness period, and no
// block is left once every process has exited (orphans reclaimed).
import assert from 'node:assert/strict';
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { localDiscovery } from '../../../src/backends/local/index.js';
import { blockName, writeBlock } from '../../../src/backends/local/block/blockFile.js';
import { localNames } from '../../../src/backends/local/names/localNames.js';
import { uidBytes } from '../../../src/backends/local/segment/slotTable.js';
import { decodeWorker } from '../../../src/codec/decodeWorker.js';
import { encodeWorker } from '../../../src/codec/encodeWorker.js';
import {
  assertClean,
  Child,
  killChildren,
  makeWorker,
  Recorder,
  strayTestFiles,
  TMP,
  uniqueNamespace,
  waitFor,
} from './helpers.js';

const POLL = 250;

after(async () => {
  await killChildren();
  assert.deepEqual(strayTestFiles(), [], 'nothing of these tests left in /dev/shm or the temp directory');
});

/** Worker blocks in /dev/shm whose worker carries one of `pids`. */
function blocksOf(pids: ReadonlySet<number>): string[] {
  const found: string[] = [];
  for (const name of readdirSync('/dev/shm')) {
    try {
      const bytes = readFileSync(join('/dev/shm', name));
      const length = bytes.readUInt32LE(0);
      if (bytes.length > 65_536 || length === 0 || length + 4 > bytes.length) continue;
      if (pids.has(decodeWorker(bytes.subarray(4, 4 + length)).pid)) found.push(name);
    } catch {
      // A directory, someone else's object, or not a worker block.
    }
  }
  return found;
}

async function busy(namespace: string): Promise<Child> {
  const child = new Child('busyPublisher.ts', [namespace]);
  await waitFor(() => child.messages.some((m) => (m as { ready?: boolean }).ready), 'busy publisher ready', 30_000);
  return child;
}

describe('local backend: kill -9 of busy publishers', () => {
  it(
    '20 random kills: the next publish within 1 s, drops within the liveness period, no block left',
    { timeout: 180_000 },
    async () => {
      const namespace = uniqueNamespace('kill9');
      const discovery = localDiscovery(namespace, { capacity: 256, pollInterval: POLL, lockTimeout: 10_000 });
      const recorder = new Recorder(discovery.events(), discovery.diagnostics);
      const publisher = discovery.publisher();
      const mine = makeWorker();
      const killed = new Set<number>();
      const waits: number[] = [];
      try {
        for (let round = 0; round < 5; round += 1) {
          const children = await Promise.all([busy(namespace), busy(namespace), busy(namespace), busy(namespace)]);
          for (const child of children) {
            await new Promise((resolve) => setTimeout(resolve, Math.random() * 40));
            killed.add(child.pid);
            await child.kill('SIGKILL');
            const started = performance.now();
            await publisher.publish('worker-added', mine);
            const waited = performance.now() - started;
            waits.push(waited);
            assert.ok(waited < 1_000, `publish after kill ${killed.size} took ${waited.toFixed(0)} ms`);
          }
          // Every process is gone: within the liveness period (one poll
          // tick to find them, one reclaim), the subscriber has no worker of
          // a killed publisher left.
          const gone = performance.now();
          await waitFor(
            () => [...recorder.workers.values()].every((w) => !killed.has(w.pid)),
            "drops of the killed publishers' workers",
            POLL * 4 + 2_000,
          );
          assert.ok(performance.now() - gone < POLL * 4 + 2_000);
        }
        assert.equal(killed.size, 20);
        assert.ok(recorder.workers.has(mine.uid));
        assert.equal(recorder.error, undefined);
        // Orphan blocks (written, never slotted; or unslotted, never unlinked)
        // are reclaimed by the next lock holder: a publish takes the lock.
        await publisher.publish('worker-updated', mine);
        await waitFor(() => blocksOf(killed).length === 0, 'no block of a killed publisher left', 5_000).catch(
          () => undefined,
        );
        assert.deepEqual(blocksOf(killed), [], 'blocks of killed publishers left in /dev/shm');
      } finally {
        await publisher.close();
        recorder.stop();
      }
      await assertClean(namespace, [mine.uid]);
    },
  );

  it('an intent record left by a holder killed between two completed changes of a burst costs nothing', async () => {
    const namespace = uniqueNamespace('staleintent');
    const names = localNames(namespace, TMP);
    const live = makeWorker();
    const gone = makeWorker();
    const other = makeWorker();
    const discovery = localDiscovery(namespace, { pollInterval: POLL });
    const recorder = new Recorder(discovery.events(), discovery.diagnostics);
    const first = discovery.publisher();
    await first.publish('worker-added', live);
    await first.publish('worker-added', gone);
    await first.publish('worker-dropped', gone);
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(
      [...readFileSync(names.rxLockPath).subarray(0, 16)],
      Array(16).fill(0),
      'cleared once the lock was released',
    );
    const second = localDiscovery(namespace, { pollInterval: false }).publisher();
    for (const stale of [live, gone]) {
      // What a holder killed after a completed add (its worker in a slot) or
      // a completed withdrawal (no slot, no block) of a burst leaves.
      const fd = openSync(names.rxLockPath, 'r+');
      writeSync(fd, uidBytes(stale.uid), 0, 16, 0);
      closeSync(fd);
      await second.publish('worker-added', { ...other, version: stale === live ? '1.0.0' : '2.0.0' });
      await new Promise((resolve) => setImmediate(resolve));
      assert.deepEqual(
        [...readFileSync(names.rxLockPath).subarray(0, 16)],
        Array(16).fill(0),
        'the record cleared by the next holder',
      );
    }
    assert.ok(existsSync(join('/dev/shm', blockName(live.uid))), 'the live worker keeps its block');
    await waitFor(() => recorder.workers.has(other.uid), 'the other worker seen');
    assert.ok(recorder.workers.has(live.uid), 'the live worker still seen');
    assert.deepEqual(recorder.of('worker-dropped', live.uid), []);
    assert.deepEqual(
      recorder.diagnostics.filter((d) => d.kind === 'recovered'),
      [],
      'nothing to recover',
    );
    await second.close();
    await first.close();
    recorder.stop();
    await assertClean(namespace, [live.uid, gone.uid, other.uid]);
  });

  it('an orphan block left by a holder killed before its slot, with no publish after: the last one out reclaims it', async () => {
    const namespace = uniqueNamespace('orphan');
    const names = localNames(namespace, TMP);
    const w = makeWorker();
    // What a publisher killed between its block and its slot leaves: the
    // block, and its intent record in woolrx's lock file (no segment yet).
    mkdirSync(names.lockDirPath, { mode: 0o700 });
    writeFileSync(names.rxLockPath, uidBytes(w.uid), { mode: 0o600 });
    writeBlock(join('/dev/shm', blockName(w.uid)), encodeWorker(w), 1024, w.uid, true);
    localDiscovery(namespace, { pollInterval: false }).events().subscribe().unsubscribe();
    await waitFor(() => !existsSync(join('/dev/shm', blockName(w.uid))), 'the orphan block reclaimed', 3_000);
    await assertClean(namespace, [w.uid]);
  });
});
