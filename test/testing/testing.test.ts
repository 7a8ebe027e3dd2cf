import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { map } from 'rxjs';
import {
  added,
  deepEqual,
  dropped,
  formatFrames,
  snapshotOf,
  testWorker,
  updated,
  workerTestScheduler,
} from '../../src/testing/index.js';

describe('woolrx/testing', () => {
  it('testWorker is deterministic and validated', () => {
    assert.equal(testWorker(1).uid, '9e3779b1-0000-4000-8000-000000000001');
    assert.equal(testWorker(255, { version: '2' }).uid, '9942374f-0000-4000-8000-0000000000ff');
    assert.equal(testWorker(2 ** 48 - 1).uid, '25b7b3da-0000-4000-8000-ffffffffffff');
    assert.throws(() => testWorker(0), /test worker number: 0/);
    assert.throws(() => testWorker(1, { pid: -3 }), /pid: -3/);
  });

  it('testWorker uids differ in their 8-character short form, and look like v4 UUIDs', () => {
    const shortForms = new Set<string>();
    for (let n = 1; n <= 100_000; n += 1) {
      const uid = testWorker(n).uid;
      assert.match(uid, /^[0-9a-f]{8}-0000-4000-8000-[0-9a-f]{12}$/);
      shortForms.add(uid.slice(0, 8));
    }
    assert.equal(shortForms.size, 100_000);
    assert.notEqual(testWorker(1).uid.slice(0, 8), '00000000');
  });

  it('event constructors carry their type', () => {
    const w = testWorker(1);
    assert.deepEqual(
      [added(w).type, updated(w).type, dropped(w).type],
      ['worker-added', 'worker-updated', 'worker-dropped'],
    );
    assert.deepEqual([...snapshotOf(w, testWorker(2)).keys()], [w.uid, testWorker(2).uid]);
  });

  it('deepEqual compares maps, sets, arrays, errors structurally', () => {
    assert.ok(deepEqual(new Map([['a', [1, { b: 2 }]]]), new Map([['a', [1, { b: 2 }]]])));
    assert.ok(!deepEqual(new Map([['a', 1]]), new Map([['a', 2]])));
    assert.ok(deepEqual(new Set([{ a: 1 }]), new Set([{ a: 1 }])));
    assert.ok(!deepEqual([1, 2], [2, 1]));
    assert.ok(!deepEqual({ a: 1 }, { a: 1, b: undefined }));
    assert.ok(deepEqual(new TypeError('x'), new TypeError('x')));
    assert.ok(!deepEqual(new TypeError('x'), new Error('x')));
  });

  it('a passing marble assertion passes', () => {
    workerTestScheduler().run(({ cold, expectObservable }) => {
      const w = testWorker(1);
      expectObservable(cold('-a|', { a: w }).pipe(map(added))).toBe('-a|', { a: added(w) });
    });
  });

  it('a failing marble assertion throws a readable message naming the worker', () => {
    assert.throws(
      () =>
        workerTestScheduler().run(({ cold, expectObservable }) => {
          const w = testWorker(1);
          expectObservable(cold('-a|', { a: added(w) })).toBe('-a|', { a: dropped(w) });
        }),
      (error: unknown) =>
        error instanceof Error &&
        /Expected:\nframe 1: N worker-dropped\(9e3779b1@127\.0\.0\.1:50001/.test(error.message) &&
        /Actual:\nframe 1: N worker-added\(9e3779b1@/.test(error.message),
    );
  });

  it('formatFrames renders completion and errors', () => {
    assert.equal(
      formatFrames([
        { frame: 0, notification: { kind: 'C' } },
        { frame: 2, notification: { kind: 'E', error: new TypeError('boom') } },
      ]),
      'frame 0: C\nframe 2: E TypeError: boom',
    );
  });
});
