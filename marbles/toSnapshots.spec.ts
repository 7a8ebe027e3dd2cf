import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Subject, asapScheduler, queueScheduler } from 'rxjs';
import type { DiscoveryEvent, WorkerSnapshot } from '../src/events/types.js';
import { diffSnapshots } from '../src/operators/diffSnapshots.js';
import { toSnapshots } from '../src/operators/toSnapshots.js';
import {
  added,
  dropped,
  snapshotOf as snap,
  updated,
  testWorker as w,
  workerTestScheduler as testScheduler,
} from '../src/testing/index.js';

describe('toSnapshots (marbles)', () => {
  it('emits one snapshot per synchronous burst of events', () => {
    const w1 = w(1);
    const w1v2 = w(1, { version: '2.0.0' });
    const w2 = w(2);
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('   -a--(bc)--d--|', { a: added(w1), b: added(w2), c: updated(w1v2), d: dropped(w2) });
      const subs = '          ^------------!';
      const expected = '      -A--B-----C--|';
      expectObservable(source.pipe(toSnapshots())).toBe(expected, {
        A: snap(w1),
        B: snap(w1v2, w2),
        C: snap(w1v2),
      });
      expectSubscriptions(source.subscriptions).toBe(subs);
    });
  });

  it('emits nothing for a batch that nets to no change', () => {
    const w1 = w(1, { tags: ['a', 'b'] });
    const w1same = w(1, { tags: ['b', 'a'] });
    const w2 = w(2);
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('   -a--(de)--u--(fg)--x--|', {
        a: added(w1),
        d: dropped(w1),
        e: added(w1),
        u: updated(w1same),
        f: added(w2),
        g: dropped(w2),
        x: dropped(w2),
      });
      const subs = '          ^---------------------!';
      const expected = '      -A--------------------|';
      expectObservable(source.pipe(toSnapshots())).toBe(expected, { A: snap(w1) });
      expectSubscriptions(source.subscriptions).toBe(subs);
    });
  });

  it('treats an update of an unknown uid as an add, and ignores a drop of an unknown uid', () => {
    const w1 = w(1);
    const w2 = w(2);
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('   -x--u--|', { x: dropped(w2), u: updated(w1) });
      const subs = '          ^------!';
      const expected = '      ----A--|';
      expectObservable(source.pipe(toSnapshots())).toBe(expected, { A: snap(w1) });
      expectSubscriptions(source.subscriptions).toBe(subs);
    });
  });

  it('flushes a pending batch before completing', () => {
    const w1 = w(1);
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('   -(a|)', { a: added(w1) });
      const subs = '          ^!';
      const expected = '      -(A|)';
      expectObservable(source.pipe(toSnapshots())).toBe(expected, { A: snap(w1) });
      expectSubscriptions(source.subscriptions).toBe(subs);
    });
  });

  it('batches on the given scheduler (queueScheduler: one snapshot per event)', () => {
    const w1 = w(1);
    const w2 = w(2);
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('   -(ab)--|', { a: added(w1), b: added(w2) });
      const subs = '          ^------!';
      const expected = '      -(AB)--|';
      expectObservable(source.pipe(toSnapshots(queueScheduler))).toBe(expected, { A: snap(w1), B: snap(w1, w2) });
      expectSubscriptions(source.subscriptions).toBe(subs);
    });
  });

  it('inverts diffSnapshots', () => {
    const w1 = w(1);
    const w2 = w(2);
    const w2v2 = w(2, { secure: true });
    const w3 = w(3);
    const snapshots = { e: snap(), a: snap(w1, w2), b: snap(w2v2, w3), c: snap(w3, w2v2), d: snap(w3) };
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('   -e--a--b--c--d--e--|', snapshots);
      const subs = '          ^------------------!';
      const expected = '      ----a--b-----d--e--|';
      expectObservable(source.pipe(diffSnapshots(), toSnapshots())).toBe(expected, snapshots);
      expectSubscriptions(source.subscriptions).toBe(subs);
    });
  });

  it('discards a pending batch and forwards a source error', () => {
    const w1 = w(1);
    const w2 = w(2);
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('   -a--(b#)', { a: added(w1), b: added(w2) }, new Error('boom'));
      const subs = '          ^---!';
      const expected = '      -A--#';
      expectObservable(source.pipe(toSnapshots())).toBe(expected, { A: snap(w1) }, new Error('boom'));
      expectSubscriptions(source.subscriptions).toBe(subs);
    });
  });

  it('errors with a TypeError on an event of unknown type', () => {
    const w1 = w(1);
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('   -a--b--|', {
        a: added(w1),
        b: { type: 'worker-moved', worker: w1 } as unknown as DiscoveryEvent,
      });
      const subs = '          ^---!';
      const expected = '      -A--#';
      expectObservable(source.pipe(toSnapshots())).toBe(
        expected,
        { A: snap(w1) },
        new TypeError('toSnapshots: unknown event type "worker-moved"'),
      );
      expectSubscriptions(source.subscriptions).toBe(subs);
    });
  });

  it('stops on early unsubscribe, cancelling a pending flush', () => {
    const w1 = w(1);
    const w2 = w(2);
    testScheduler().run(({ hot, expectObservable, expectSubscriptions }) => {
      const source = hot('    -a--b--|', { a: added(w1), b: added(w2) });
      const subs = '          ^---!';
      const unsub = '         ^---!';
      const expected = '      -A---';
      expectObservable(source.pipe(toSnapshots()), unsub).toBe(expected, { A: snap(w1) });
      expectSubscriptions(source.subscriptions).toBe(subs);
    });
  });

  it('keeps state per subscription: a late subscriber starts from the empty set', () => {
    const w1 = w(1);
    const w2 = w(2);
    testScheduler().run(({ hot, expectObservable, expectSubscriptions }) => {
      const source = hot('    -a---b---|', { a: added(w1), b: added(w2) });
      const subs1 = '         ^--------!';
      const sub2 = '          ---^';
      const subs2 = '         ---^-----!';
      const expected1 = '     -A---B---|';
      const expected2 = '     -----C---|';
      const snapshots = source.pipe(toSnapshots());
      expectObservable(snapshots).toBe(expected1, { A: snap(w1), B: snap(w1, w2) });
      expectObservable(snapshots, sub2).toBe(expected2, { C: snap(w2) });
      expectSubscriptions(source.subscriptions).toBe([subs1, subs2]);
    });
  });

  it('completes without emitting with an empty source', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold<DiscoveryEvent>('|');
      const subs = '                       (^!)';
      const expected = '                   |';
      expectObservable(source.pipe(toSnapshots())).toBe(expected);
      expectSubscriptions(source.subscriptions).toBe(subs);
    });
  });

  it('never emits with a never source', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold<DiscoveryEvent>('-');
      const subs = '                       ^';
      const expected = '                   -';
      expectObservable(source.pipe(toSnapshots())).toBe(expected);
      expectSubscriptions(source.subscriptions).toBe(subs);
    });
  });

  it('emits fresh maps that are never mutated afterwards', async () => {
    const input = new Subject<DiscoveryEvent>();
    const seen: WorkerSnapshot[] = [];
    input.pipe(toSnapshots(asapScheduler)).subscribe((snapshot) => seen.push(snapshot));
    const [w1, w2] = [w(1), w(2)];
    input.next(added(w1));
    input.next(added(w2));
    assert.equal(seen.length, 0, 'flushed before the burst ended');
    await Promise.resolve();
    assert.equal(seen.length, 1);
    input.next(dropped(w1));
    await Promise.resolve();
    input.next(updated(w(2, { version: '9' })));
    await Promise.resolve();
    assert.equal(seen.length, 3);
    assert.notEqual(seen[0], seen[1]);
    assert.notEqual(seen[1], seen[2]);
    assert.deepStrictEqual(seen[0], snap(w1, w2));
    assert.deepStrictEqual(seen[1], snap(w2));
    assert.deepStrictEqual(seen[2], snap(w(2, { version: '9' })));
  });

  it('rejects a non-scheduler at call time', () => {
    assert.throws(() => toSnapshots({} as never), {
      name: 'TypeError',
      message: 'toSnapshots: scheduler must be a SchedulerLike, got {}',
    });
  });
});
