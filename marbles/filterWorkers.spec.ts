import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { DiscoveryEvent } from '../src/events/types.js';
import type { WorkerInfo } from '../src/model/types.js';
import { filterWorkers } from '../src/operators/filterWorkers.js';
import {
  added,
  dropped,
  updated,
  testWorker as w,
  workerTestScheduler as testScheduler,
} from '../src/testing/index.js';

const gpu = (worker: WorkerInfo): boolean => worker.tags.includes('gpu');

describe('filterWorkers (marbles)', () => {
  it('turns workers that start or stop passing into added and dropped', () => {
    const w1 = w(1, { tags: ['gpu'] });
    const w1cpu = w(1, { tags: ['cpu'] });
    const w2 = w(2, { tags: ['cpu'] });
    const w2gpu = w(2, { tags: ['gpu'] });
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('   -a--b--c--d--e--|', {
        a: added(w1),
        b: added(w2),
        c: updated(w2gpu),
        d: updated(w1cpu),
        e: dropped(w2gpu),
      });
      const subs = '          ^---------------!';
      const expected = '      -a-----C--D--e--|';
      expectObservable(source.pipe(filterWorkers(gpu))).toBe(expected, {
        a: added(w1),
        C: added(w2gpu),
        D: dropped(w1), // the last metadata that passed, not w1cpu
        e: dropped(w2gpu),
      });
      expectSubscriptions(source.subscriptions).toBe(subs);
    });
  });

  it('emits updated for a passing worker that keeps passing, including a re-add', () => {
    const w1 = w(1, { tags: ['gpu'] });
    const w1v2 = w(1, { tags: ['gpu'], version: '2.0.0' });
    const w1v3 = w(1, { tags: ['gpu'], version: '3.0.0' });
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('   -a--u--r--|', { a: added(w1), u: updated(w1v2), r: added(w1v3) });
      const subs = '          ^---------!';
      const expected = '      -a--u--R--|';
      expectObservable(source.pipe(filterWorkers(gpu))).toBe(expected, {
        a: added(w1),
        u: updated(w1v2),
        R: updated(w1v3),
      });
      expectSubscriptions(source.subscriptions).toBe(subs);
    });
  });

  it('suppresses never-passing workers, their updates and their drops', () => {
    const w1 = w(1, { tags: ['cpu'] });
    const w1v2 = w(1, { tags: ['cpu'], version: '2.0.0' });
    const w3 = w(3);
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('   -a--u--d--x--|', { a: added(w1), u: updated(w1v2), d: dropped(w1v2), x: dropped(w3) });
      const subs = '          ^------------!';
      const expected = '      -------------|';
      expectObservable(source.pipe(filterWorkers(gpu))).toBe(expected);
      expectSubscriptions(source.subscriptions).toBe(subs);
    });
  });

  it('drops with the last passing metadata even when the drop carries other metadata', () => {
    const w1 = w(1, { tags: ['gpu'], version: '1' });
    const w1later = w(1, { tags: ['gpu'], version: '2' });
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('   -a--d--d--|', { a: added(w1), d: dropped(w1later) });
      const subs = '          ^---------!';
      const expected = '      -a--D-----|';
      expectObservable(source.pipe(filterWorkers(gpu))).toBe(expected, { a: added(w1), D: dropped(w1) });
      expectSubscriptions(source.subscriptions).toBe(subs);
    });
  });

  it('errors the stream and unsubscribes the source when the predicate throws', () => {
    const w1 = w(1, { tags: ['gpu'] });
    const w2 = w(2, { tags: ['boom'] });
    const failure = new Error('predicate failed');
    const predicate = (worker: WorkerInfo): boolean => {
      if (worker.tags.includes('boom')) throw failure;
      return true;
    };
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('   -a--b--c--|', { a: added(w1), b: added(w2), c: dropped(w1) });
      const subs = '          ^---!';
      const expected = '      -a--#';
      expectObservable(source.pipe(filterWorkers(predicate))).toBe(expected, { a: added(w1) }, failure);
      expectSubscriptions(source.subscriptions).toBe(subs);
    });
  });

  it('forwards a source error', () => {
    const w1 = w(1, { tags: ['gpu'] });
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('   -a--#', { a: added(w1) }, new Error('boom'));
      const subs = '          ^---!';
      const expected = '      -a--#';
      expectObservable(source.pipe(filterWorkers(gpu))).toBe(expected, { a: added(w1) }, new Error('boom'));
      expectSubscriptions(source.subscriptions).toBe(subs);
    });
  });

  it('stops on early unsubscribe', () => {
    const w1 = w(1, { tags: ['gpu'] });
    const w2 = w(2, { tags: ['gpu'] });
    testScheduler().run(({ hot, expectObservable, expectSubscriptions }) => {
      const source = hot('    -a--b--|', { a: added(w1), b: added(w2) });
      const subs = '          ^---!';
      const unsub = '         ^---!';
      const expected = '      -a---';
      expectObservable(source.pipe(filterWorkers(gpu)), unsub).toBe(expected, { a: added(w1) });
      expectSubscriptions(source.subscriptions).toBe(subs);
    });
  });

  it('keeps state per subscription', () => {
    const w1 = w(1, { tags: ['gpu'] });
    const w1cpu = w(1, { tags: ['cpu'] });
    testScheduler().run(({ hot, expectObservable, expectSubscriptions }) => {
      const source = hot('    -a---u---|', { a: added(w1), u: updated(w1cpu) });
      const subs1 = '         ^--------!';
      const sub2 = '          ---^';
      const subs2 = '         ---^-----!';
      const expected1 = '     -a---d---|';
      const expected2 = '     ---------|';
      const filtered = source.pipe(filterWorkers(gpu));
      expectObservable(filtered).toBe(expected1, { a: added(w1), d: dropped(w1) });
      expectObservable(filtered, sub2).toBe(expected2);
      expectSubscriptions(source.subscriptions).toBe([subs1, subs2]);
    });
  });

  it('errors with a TypeError on a malformed event', () => {
    const w1 = w(1, { tags: ['gpu'] });
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('   -a--b--|', {
        a: added(w1),
        b: { type: 'worker-moved', worker: w1 } as unknown as DiscoveryEvent,
      });
      const subs = '          ^---!';
      const expected = '      -a--#';
      expectObservable(source.pipe(filterWorkers(gpu))).toBe(
        expected,
        { a: added(w1) },
        new TypeError('filterWorkers: unknown event type "worker-moved"'),
      );
      expectSubscriptions(source.subscriptions).toBe(subs);
    });
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('   -b--|', { b: { type: 'worker-added', worker: null } as unknown as DiscoveryEvent });
      const subs = '          ^!';
      const expected = '      -#';
      expectObservable(source.pipe(filterWorkers(gpu))).toBe(
        expected,
        undefined,
        new TypeError('filterWorkers: event has no worker uid: {"type":"worker-added","worker":null}'),
      );
      expectSubscriptions(source.subscriptions).toBe(subs);
    });
  });

  it('completes with an empty source', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold<DiscoveryEvent>('|');
      const subs = '                       (^!)';
      const expected = '                   |';
      expectObservable(source.pipe(filterWorkers(gpu))).toBe(expected);
      expectSubscriptions(source.subscriptions).toBe(subs);
    });
  });

  it('never emits with a never source', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold<DiscoveryEvent>('-');
      const subs = '                       ^';
      const expected = '                   -';
      expectObservable(source.pipe(filterWorkers(gpu))).toBe(expected);
      expectSubscriptions(source.subscriptions).toBe(subs);
    });
  });

  it('rejects a non-function predicate at call time', () => {
    for (const [value, shown] of [
      [undefined, 'undefined'],
      ['gpu', '"gpu"'],
      [{}, '{}'],
    ] as const) {
      assert.throws(() => filterWorkers(value as never), {
        name: 'TypeError',
        message: `filterWorkers: predicate must be a function, got ${shown}`,
      });
    }
  });
});
