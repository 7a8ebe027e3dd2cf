// The pure step behind filterWorkers: one event in, the event to emit (or none) out.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { DiscoveryEvent } from '../../src/events/types.js';
import type { WorkerInfo } from '../../src/model/types.js';
import { filterWorkersStep } from '../../src/operators/filterWorkers.js';
import { added, dropped, testWorker, updated } from '../../src/testing/index.js';

const gpu = (worker: WorkerInfo): boolean => worker.tags.includes('gpu');

describe('filterWorkersStep', () => {
  it('adds a passing worker, updates it while it passes, drops it with its last passing metadata', () => {
    const passing = new Map<string, WorkerInfo>();
    const a = testWorker(1, { tags: ['gpu'] });
    const a2 = testWorker(1, { tags: ['gpu'], version: '2' });
    const aCpu = testWorker(1, { tags: ['cpu'] });
    const first = added(a);
    assert.equal(filterWorkersStep(passing, gpu, first), first, 'passed through as is');
    assert.deepEqual(filterWorkersStep(passing, gpu, added(a2)), updated(a2), 'a re-add of a passing uid is an update');
    assert.deepEqual(filterWorkersStep(passing, gpu, updated(aCpu)), dropped(a2));
    assert.equal(passing.size, 0);
  });

  it('emits nothing for a worker that never passed, and does not call the predicate on drops', () => {
    const passing = new Map<string, WorkerInfo>();
    const calls: string[] = [];
    const spy = (worker: WorkerInfo): boolean => (calls.push(worker.uid), false);
    const b = testWorker(2);
    assert.equal(filterWorkersStep(passing, spy, added(b)), undefined);
    assert.equal(filterWorkersStep(passing, spy, updated(b)), undefined);
    assert.equal(filterWorkersStep(passing, spy, dropped(b)), undefined);
    assert.deepEqual(calls, [b.uid, b.uid]);
  });

  it('turns a worker that starts passing into an add', () => {
    const passing = new Map<string, WorkerInfo>();
    const c = testWorker(3, { tags: ['gpu'] });
    assert.equal(filterWorkersStep(passing, gpu, added(testWorker(3))), undefined);
    assert.deepEqual(filterWorkersStep(passing, gpu, updated(c)), added(c));
    assert.deepEqual([...passing.values()], [c]);
  });

  it('throws what the predicate throws, and a TypeError naming a malformed event', () => {
    const boom = new Error('boom');
    assert.throws(
      () =>
        filterWorkersStep(
          new Map(),
          () => {
            throw boom;
          },
          added(testWorker(1)),
        ),
      (err) => err === boom,
    );
    assert.throws(
      () => filterWorkersStep(new Map(), gpu, { type: 'worker-added', worker: null } as unknown as DiscoveryEvent),
      {
        name: 'TypeError',
        message: 'filterWorkers: event has no worker uid: {"type":"worker-added","worker":null}',
      },
    );
    assert.throws(
      () =>
        filterWorkersStep(new Map(), gpu, { type: 'worker-moved', worker: testWorker(1) } as unknown as DiscoveryEvent),
      {
        name: 'TypeError',
        message: 'filterWorkers: unknown event type "worker-moved"',
      },
    );
  });
});
