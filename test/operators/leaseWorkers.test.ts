import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Observable, Subject } from 'rxjs';
import { memoryDiscovery } from '../../src/backends/memory/memoryDiscovery.js';
import { MemoryRegistry } from '../../src/backends/memory/MemoryRegistry.js';
import { LeaseLostError } from '../../src/errors/LeaseLostError.js';
import { QueueClosedError } from '../../src/errors/QueueClosedError.js';
import { SYNCED } from '../../src/events/discoveryEvent.js';
import type { DiscoveryItem } from '../../src/events/types.js';
import type { WorkerInfo } from '../../src/model/types.js';
import { leaseWorkers } from '../../src/operators/leaseWorkers.js';
import { added, dropped, updated, testWorker as w } from '../../src/testing/index.js';

const gpu = (worker: WorkerInfo): boolean => worker.tags.includes('gpu');
const microtasks = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Settles a promise's state without waiting for it: 'pending', or its value or error. */
async function state<T>(promise: Promise<T>): Promise<{ value?: T; error?: unknown } | 'pending'> {
  let result: { value?: T; error?: unknown } | 'pending' = 'pending';
  promise.then(
    (value) => (result = { value }),
    (error: unknown) => (result = { error }),
  );
  await microtasks();
  return result;
}

describe('leaseWorkers', () => {
  it('with a real discovery: one holder per worker, callers wait in line, release gives back the latest metadata', async () => {
    const discovery = memoryDiscovery('leases', { registry: new MemoryRegistry() });
    const publisher = discovery.publisher();
    const pool = leaseWorkers(discovery.events());
    try {
      await publisher.publish('worker-added', w(1, { tags: ['gpu'] }));
      await publisher.publish('worker-added', w(2, { tags: ['gpu'] }));
      await publisher.publish('worker-added', w(3, { tags: ['cpu'] }));
      const [first, second] = await Promise.all([pool.acquire(gpu), pool.acquire(gpu)]);
      assert.deepEqual([first.worker.uid, second.worker.uid], [w(1).uid, w(2).uid]);
      assert.deepEqual(
        pool.available.map((worker) => worker.uid),
        [w(3).uid],
      );
      const third = pool.acquire(gpu);
      const fourth = pool.acquire(gpu);
      assert.equal(await state(third), 'pending');
      // The recipe's subtle rule: an update of a leased worker does not put it back.
      await publisher.publish('worker-updated', w(1, { tags: ['gpu', 'busy'] }));
      assert.deepEqual(
        pool.available.map((worker) => worker.uid),
        [w(3).uid],
      );
      assert.equal(first.lost.aborted, false, 'still passes gpu');
      first.release();
      first.release();
      const got = await third;
      assert.deepEqual(got.worker, w(1, { tags: ['gpu', 'busy'] }), 'the latest metadata');
      assert.equal(await state(fourth), 'pending', 'a second release() gave nothing');
      second.release();
      assert.equal((await fourth).worker.uid, w(2).uid);
    } finally {
      pool.close();
      await publisher.close();
    }
  });

  it('a dropped worker: lost fires with a LeaseLostError, release() is a no-op, it is never handed out again', async () => {
    const source = new Subject<DiscoveryItem>();
    const pool = leaseWorkers(source);
    source.next(added(w(1)));
    source.next(SYNCED);
    const lease = await pool.acquire();
    let fired = 0;
    lease.lost.addEventListener('abort', () => (fired += 1));
    const waiting = pool.acquire();
    source.next(dropped(w(1)));
    assert.equal(fired, 1);
    const reason = lease.lost.reason as LeaseLostError;
    assert.ok(reason instanceof LeaseLostError);
    assert.equal(reason.code, 'WOOLRX_LEASE_LOST');
    assert.equal(reason.uid, w(1).uid);
    assert.equal(reason.reason, 'dropped');
    assert.match(reason.message, /the worker was dropped/);
    assert.throws(() => lease.lost.throwIfAborted(), LeaseLostError);
    lease.release();
    assert.equal(await state(waiting), 'pending');
    assert.deepEqual(pool.available, []);
    source.next(added(w(1, { version: '2.0.0' })));
    assert.equal((await waiting).worker.version, '2.0.0');
    pool.close();
  });

  it('an aborted signal rejects a pending acquire with its reason and removes it from the line', async () => {
    const source = new Subject<DiscoveryItem>();
    const pool = leaseWorkers(source);
    const controller = new AbortController();
    const first = pool.acquire(gpu, { signal: controller.signal });
    const second = pool.acquire(gpu);
    const reason = new Error('gave up');
    controller.abort(reason);
    await assert.rejects(first, (error) => error === reason);
    source.next(added(w(1, { tags: ['gpu'] })));
    assert.equal((await second).worker.uid, w(1).uid, 'the aborted caller no longer holds a place');
    const aborted = AbortSignal.abort(new Error('already'));
    source.next(added(w(2, { tags: ['gpu'] })));
    await assert.rejects(pool.acquire(gpu, { signal: aborted }), /already/);
    assert.deepEqual(
      pool.available.map((worker) => worker.uid),
      [w(2).uid],
      'an aborted acquire takes nothing',
    );
    const late = new AbortController();
    const granted = await pool.acquire(gpu, { signal: late.signal });
    late.abort();
    assert.equal(granted.lost.aborted, false, 'aborting after the grant changes nothing');
    pool.close();
  });

  it('a failing, completing or closed source refuses acquires with QueueClosedError and loses every lease', async () => {
    const failure = new Error('backend down');
    const source = new Subject<DiscoveryItem>();
    const pool = leaseWorkers(source);
    source.next(added(w(1)));
    const lease = await pool.acquire();
    const pending = pool.acquire();
    source.error(failure);
    await assert.rejects(pending, (error: unknown) => {
      assert.ok(error instanceof QueueClosedError);
      assert.equal(error.code, 'WOOLRX_QUEUE_CLOSED');
      assert.equal(error.cause, failure);
      assert.match(error.message, /leaseWorkers: the worker source failed \(backend down\)/);
      return true;
    });
    assert.equal((lease.lost.reason as LeaseLostError).reason, 'closed');
    assert.equal(pool.closed, true);
    await assert.rejects(pool.acquire(), QueueClosedError);
    lease.release();
    assert.deepEqual(pool.available, [], 'release after the end gives nothing back');

    const completing = new Subject<DiscoveryItem>();
    const pool2 = leaseWorkers(completing);
    const pending2 = pool2.acquire();
    completing.complete();
    await assert.rejects(pending2, /the worker source completed/);

    const open = new Subject<DiscoveryItem>();
    const pool3 = leaseWorkers(open);
    const pending3 = pool3.acquire();
    assert.equal(open.observed, true);
    pool3.close();
    pool3.close();
    assert.equal(open.observed, false, 'close() unsubscribes the source');
    await assert.rejects(pending3, /the pool was closed/);
  });

  it('a malformed event ends the pool with a TypeError naming it as the cause', async () => {
    const source = new Subject<unknown>();
    const pool = leaseWorkers(source as Subject<DiscoveryItem>);
    const pending = pool.acquire();
    source.next({ type: 'worker-added' });
    await assert.rejects(pending, (error: unknown) => {
      assert.ok(error instanceof QueueClosedError);
      assert.ok(error.cause instanceof TypeError);
      assert.match(error.message, /bad event .*no worker uid/);
      return true;
    });
    assert.equal(source.observed, false);
  });

  it('rejects bad arguments, naming them', async () => {
    assert.throws(
      () => leaseWorkers(42 as never),
      /leaseWorkers: events\$ must be an Observable of worker events, got 42/,
    );
    const pool = leaseWorkers(new Observable<DiscoveryItem>());
    await assert.rejects(pool.acquire('gpu' as never), /leaseWorkers: predicate must be a function, got "gpu"/);
    await assert.rejects(pool.acquire(undefined, null as never), /acquire options must be an object, got null/);
    await assert.rejects(pool.acquire(undefined, { signal: {} as AbortSignal }), /signal must be an AbortSignal/);
    assert.throws(() => pool.lease(1 as never), TypeError);
    pool.close();
  });

  it('using: a pool is disposed (its source released), a lease released, at the end of the block', async () => {
    const source = new Subject<DiscoveryItem>();
    {
      using pool = leaseWorkers(source);
      source.next(added(w(1)));
      {
        using lease = await pool.acquire();
        assert.equal(pool.available.length, 0);
        void lease;
      }
      assert.deepEqual(
        pool.available.map((worker) => worker.uid),
        [w(1).uid],
      );
    }
    assert.equal(source.observed, false);
  });

  it('releasing from inside lost (an update out of the predicate) hands the worker to the next caller at once', async () => {
    const source = new Subject<DiscoveryItem>();
    const pool = leaseWorkers(source);
    source.next(added(w(1, { tags: ['gpu'] })));
    const lease = await pool.acquire(gpu);
    lease.lost.addEventListener('abort', () => lease.release());
    const cpuCaller = pool.acquire((worker) => worker.tags.includes('cpu'));
    source.next(updated(w(1, { tags: ['cpu'] })));
    assert.equal((lease.lost.reason as LeaseLostError).reason, 'updated');
    assert.deepEqual((await cpuCaller).worker.tags, ['cpu']);
    pool.close();
  });

  it("an unchanged re-announcement keeps a worker's place; a changed one is offered again", async () => {
    const source = new Subject<DiscoveryItem>();
    const pool = leaseWorkers(source);
    source.next(added(w(1)));
    source.next(added(w(2)));
    source.next(added(w(1)));
    assert.deepEqual(
      pool.available.map((worker) => worker.uid),
      [w(1).uid, w(2).uid],
    );
    const big = pool.acquire((worker) => worker.extra['size'] === 'big');
    source.next(updated(w(1, { extra: { size: 'big' } })));
    assert.equal((await big).worker.uid, w(1).uid);
    pool.close();
  });
});
