// Publisher semantics, in one process against real shared memory.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { acquireNamespaceLock } from '../../../src/backends/local/lock/namespaceLock.js';
import { blockName } from '../../../src/backends/local/block/blockFile.js';
import { localDiscovery } from '../../../src/backends/local/index.js';
import { localNames } from '../../../src/backends/local/names/localNames.js';
import { shortHash } from '../../../src/backends/local/names/shortHash.js';
import { BlockExhaustedError } from '../../../src/backends/local/block/BlockExhaustedError.js';
import { CapacityExhaustedError } from '../../../src/backends/local/segment/segmentErrors.js';
import { PublisherClosedError } from '../../../src/errors/PublisherClosedError.js';
import { WorkerNotFoundError } from '../../../src/errors/WorkerNotFoundError.js';
import { workerInfo } from '../../../src/model/workerInfo.js';
import { assertClean, makeWorker, Recorder, TMP, uniqueNamespace, waitFor, strayTestFiles } from './helpers.js';

const used: { namespace: string; uids: string[] }[] = [];
function setup(tag: string, options: Parameters<typeof localDiscovery>[1] = {}) {
  const namespace = uniqueNamespace(tag);
  const uids: string[] = [];
  used.push({ namespace, uids });
  const discovery = localDiscovery(namespace, { pollInterval: false, ...options });
  const worker = (overrides: Parameters<typeof makeWorker>[0] = {}) => {
    const w = makeWorker(overrides);
    uids.push(w.uid);
    return w;
  };
  const segment = () => readFileSync(join('/dev/shm', shortHash(namespace)));
  const takenSlots = () => {
    const table = segment().subarray(16);
    let taken = 0;
    for (let i = 0; i < table.length; i += 16) if (!table.subarray(i, i + 16).equals(Buffer.alloc(16))) taken += 1;
    return taken;
  };
  return { namespace, discovery, worker, segment, takenSlots };
}

after(async () => {
  for (const { namespace, uids } of used) await assertClean(namespace, uids);
  assert.deepEqual(strayTestFiles(), [], 'nothing of these tests left in /dev/shm or the temp directory');
});

describe('local publisher', () => {
  it('re-add refreshes in place: one slot, subscribers see one worker-updated; identical re-add emits nothing', async () => {
    const { discovery, worker, takenSlots } = setup('refresh');
    const recorder = new Recorder(discovery.events());
    const publisher = discovery.publisher();
    const w = worker();
    await publisher.publish('worker-added', w);
    await waitFor(() => recorder.of('worker-added', w.uid).length === 1, 'added');
    const moved = workerInfo({ ...w, address: '127.0.0.1:7777' });
    await publisher.publish('worker-added', moved);
    await waitFor(() => recorder.of('worker-updated', w.uid).length === 1, 'updated');
    assert.equal(takenSlots(), 1);
    assert.equal(recorder.workers.get(w.uid)?.address, '127.0.0.1:7777');
    await publisher.publish('worker-added', moved); // same bytes
    const marker = worker();
    await publisher.publish('worker-added', marker); // a later change, to know the scan ran
    await waitFor(() => recorder.workers.has(marker.uid), 'marker worker');
    assert.equal(recorder.of('worker-updated', w.uid).length, 1, 'no update for unchanged metadata');
    await publisher.publish('worker-dropped', marker);
    recorder.stop();
    await publisher.close();
  });

  it('update of an unknown worker rejects with WorkerNotFoundError naming it; drop of one is a no-op', async () => {
    const { discovery, worker, namespace } = setup('notfound');
    const publisher = discovery.publisher();
    const w = worker();
    await assert.rejects(publisher.publish('worker-updated', w), (error: unknown) => {
      assert.ok(error instanceof WorkerNotFoundError);
      assert.equal(error.uid, w.uid);
      assert.equal(error.namespace, namespace);
      return true;
    });
    await publisher.publish('worker-dropped', w);
    await publisher.publish('worker-added', worker());
    await assert.rejects(publisher.publish('worker-updated', w), WorkerNotFoundError);
    await publisher.publish('worker-dropped', w);
    await publisher.close();
  });

  it('full namespace rejects with CapacityExhaustedError; the failed add leaves no block and no slot', async () => {
    const { discovery, worker, takenSlots } = setup('capacity', { capacity: 2 });
    const publisher = discovery.publisher();
    await publisher.publish('worker-added', worker());
    await publisher.publish('worker-added', worker());
    const third = worker();
    await assert.rejects(publisher.publish('worker-added', third), (error: unknown) => {
      assert.ok(error instanceof CapacityExhaustedError);
      assert.equal(error.capacity, 2);
      return true;
    });
    assert.equal(existsSync(join('/dev/shm', blockName(third.uid))), false, 'no block left');
    assert.equal(takenSlots(), 2);
    await publisher.close();
  });

  it('a record larger than its block rejects with BlockExhaustedError and leaves the prior registration intact', async () => {
    const { discovery, worker, takenSlots } = setup('blocksize', { blockSize: 128 });
    const publisher = discovery.publisher();
    const w = worker();
    await publisher.publish('worker-added', w);
    const path = join('/dev/shm', blockName(w.uid));
    const before = readFileSync(path);
    const huge = workerInfo({ ...w, extra: { blob: 'x'.repeat(200) } });
    await assert.rejects(publisher.publish('worker-updated', huge), (error: unknown) => {
      assert.ok(error instanceof BlockExhaustedError);
      assert.equal(error.blockSize, 128);
      assert.ok(error.size > 128);
      assert.equal(error.uid, w.uid);
      return true;
    });
    await assert.rejects(publisher.publish('worker-added', huge), BlockExhaustedError);
    assert.deepEqual(readFileSync(path), before, 'prior block bytes untouched');
    const fresh = worker({ extra: { blob: 'y'.repeat(200) } });
    await assert.rejects(publisher.publish('worker-added', fresh), BlockExhaustedError);
    assert.equal(existsSync(join('/dev/shm', blockName(fresh.uid))), false, 'failed add leaves no block');
    assert.equal(takenSlots(), 1, 'failed add takes no slot');
    await publisher.close();
  });

  it('runs operations in call order: a publish made while an earlier one waits for the lock does not overtake it', async () => {
    const { namespace, discovery, worker } = setup('order');
    const recorder = new Recorder(discovery.events());
    const publisher = discovery.publisher();
    const w = worker();
    await publisher.publish('worker-added', w);
    await waitFor(() => recorder.workers.has(w.uid), 'added');
    const release = await acquireNamespaceLock({ ...localNames(namespace, TMP), lockTimeout: 5_000 });
    const dropped = publisher.publish('worker-dropped', w); // the lock is busy: it waits
    release(); // free now, while the drop still waits its turn
    const moved = workerInfo({ ...w, address: '127.0.0.1:7001' });
    const readded = publisher.publish('worker-added', moved); // must run after the drop
    await Promise.all([dropped, readded]);
    await waitFor(() => recorder.workers.get(w.uid)?.address === '127.0.0.1:7001', 're-added after the drop');
    assert.deepEqual(
      recorder.events.filter((event) => event.worker.uid === w.uid).map((event) => event.type),
      ['worker-added', 'worker-dropped', 'worker-added'],
    );
    await publisher.close();
    recorder.stop();
  });

  it('close() withdraws every worker it registered (slots zeroed, blocks unlinked) and is idempotent', async () => {
    const { discovery, worker, namespace } = setup('close');
    const recorder = new Recorder(discovery.events());
    const a = discovery.publisher();
    const b = discovery.publisher();
    const mine = [worker(), worker(), worker()];
    const theirs = worker();
    for (const w of mine) await a.publish('worker-added', w);
    await b.publish('worker-added', theirs);
    await waitFor(() => recorder.workers.size === 4, '4 workers');
    await Promise.all([a.close(), a.close()]);
    assert.equal(a.closed, true);
    await waitFor(() => recorder.workers.size === 1, 'withdrawal');
    for (const w of mine) {
      assert.equal(recorder.of('worker-dropped', w.uid).length, 1);
      assert.equal(existsSync(join('/dev/shm', blockName(w.uid))), false);
    }
    assert.ok(recorder.workers.has(theirs.uid));
    assert.ok(existsSync(join('/dev/shm', shortHash(namespace))), 'segment stays while a worker is registered');
    await assert.rejects(a.publish('worker-added', worker()), PublisherClosedError);
    await b[Symbol.asyncDispose]();
    await waitFor(() => recorder.workers.size === 0, 'all withdrawn');
    recorder.stop();
    // Last one out: nothing of the namespace remains.
    assert.equal(existsSync(join('/dev/shm', shortHash(namespace))), false);
    assert.equal(existsSync(join(TMP, `wool-${namespace}`)), false);
  });

  it("ownership: a worker dropped and re-registered by another publisher is no longer the first one's to withdraw", async () => {
    const { discovery, worker } = setup('owner-reregister');
    const recorder = new Recorder(discovery.events());
    const first = discovery.publisher();
    const second = discovery.publisher();
    const w = worker();
    await first.publish('worker-added', w);
    await second.publish('worker-dropped', w); // withdrawn, whichever publisher registered it
    const w2 = workerInfo({ ...w, version: '2' });
    await second.publish('worker-added', w2); // registered anew, while absent: second's
    await waitFor(() => recorder.of('worker-added', w.uid).length === 2, 'added twice');
    await first.close(); // owns nothing still registered
    const sentinel = worker();
    await second.publish('worker-added', sentinel);
    await waitFor(() => recorder.workers.has(sentinel.uid), 'sentinel');
    assert.deepEqual(
      recorder.events
        .filter((event) => event.worker.uid === w.uid)
        .map((event) => `${event.type} ${event.worker.version}`),
      ['worker-added 1.0.0', 'worker-dropped 1.0.0', 'worker-added 2'],
    );
    assert.ok(existsSync(join('/dev/shm', blockName(w.uid))), 'its block stays');
    await second.close();
    await waitFor(() => recorder.workers.size === 0, 'withdrawn by its registrant');
    assert.equal(recorder.of('worker-dropped', w.uid).length, 2);
    recorder.stop();
  });

  it('rejects a bad event type or worker with TypeError, touching nothing', async () => {
    const { discovery, namespace } = setup('badinput');
    const publisher = discovery.publisher();
    await assert.rejects(publisher.publish('worker-moved' as 'worker-added', makeWorker()), /worker-moved/);
    await assert.rejects(publisher.publish('worker-added', { uid: 'nope' } as never), TypeError);
    assert.equal(existsSync(join('/dev/shm', shortHash(namespace))), false);
    await publisher.close();
  });
});
