import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Subject } from 'rxjs';
import type { DiscoveryEvent, WorkerSnapshot } from '../src/events/types.js';
import { diffSnapshots } from '../src/operators/diffSnapshots.js';
import {
  added,
  dropped,
  snapshotOf as snap,
  updated,
  testWorker as w,
  workerTestScheduler as testScheduler,
} from '../src/testing/index.js';

describe('diffSnapshots (marbles)', () => {
  it('emits worker-added for the first snapshot, then only the differences', () => {
    const w1 = w(1);
    const w2 = w(2);
    const w2v2 = w(2, { version: '2.0.0' });
    const w3 = w(3);
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('   -a------b------c--|', { a: snap(w1, w2), b: snap(w2v2, w3), c: snap(w3) });
      const subs = '          ^-----------------!';
      const expected = '      -(xy)---(dpz)--q--|';
      expectObservable(source.pipe(diffSnapshots())).toBe(expected, {
        x: added(w1),
        y: added(w2),
        d: dropped(w1),
        p: updated(w2v2),
        z: added(w3),
        q: dropped(w2v2),
      });
      expectSubscriptions(source.subscriptions).toBe(subs);
    });
  });

  it('emits drops first (previous order), then adds/updates in the new order', () => {
    const [w1, w2, w3, w4, w5, w6] = [w(1), w(2), w(3), w(4), w(5), w(6)];
    const w2v2 = w(2, { tags: ['gpu'] });
    const w6same = w(6); // another object with identical metadata: no update
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('   -a-------b----------|', {
        a: snap(w3, w1, w2, w6),
        b: snap(w5, w2v2, w6same, w4),
      });
      const subs = '          ^-------------------!';
      const expected = '      -(cabf)--(CAeBd)----|';
      expectObservable(source.pipe(diffSnapshots())).toBe(expected, {
        c: added(w3),
        a: added(w1),
        b: added(w2),
        f: added(w6),
        C: dropped(w3),
        A: dropped(w1),
        e: added(w5),
        B: updated(w2v2),
        d: added(w4),
      });
      expectSubscriptions(source.subscriptions).toBe(subs);
    });
  });

  it('emits nothing for a snapshot that equals the previous one', () => {
    const w1 = w(1, { extra: { zone: 'a' } });
    const w1copy = w(1, { extra: { zone: 'a' } });
    const w2 = w(2);
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('   -a--b--c--d--|', {
        a: snap(w1, w2),
        b: snap(w1copy, w2),
        c: snap(w2, w1),
        d: snap(w1, w2),
      });
      const subs = '          ^------------!';
      const expected = '      -(xy)--------|';
      expectObservable(source.pipe(diffSnapshots())).toBe(expected, { x: added(w1), y: added(w2) });
      expectSubscriptions(source.subscriptions).toBe(subs);
    });
  });

  it('treats leading empty snapshots as no change and a later empty one as dropping all', () => {
    const w1 = w(1);
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('   -e--a--e--|', { e: snap(), a: snap(w1) });
      const subs = '          ^---------!';
      const expected = '      ----x--y--|';
      expectObservable(source.pipe(diffSnapshots())).toBe(expected, { x: added(w1), y: dropped(w1) });
      expectSubscriptions(source.subscriptions).toBe(subs);
    });
  });

  it('emits all events of one snapshot synchronously, in one burst', () => {
    const input = new Subject<WorkerSnapshot>();
    const events: DiscoveryEvent[] = [];
    input.pipe(diffSnapshots()).subscribe((event) => events.push(event));
    input.next(snap(w(1), w(2), w(3)));
    assert.equal(events.length, 3);
    input.next(snap(w(3)));
    assert.equal(events.length, 5);
  });

  it('forwards a source error', () => {
    const w1 = w(1);
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('   -a--#', { a: snap(w1) }, new Error('boom'));
      const subs = '          ^---!';
      const expected = '      -x--#';
      expectObservable(source.pipe(diffSnapshots())).toBe(expected, { x: added(w1) }, new Error('boom'));
      expectSubscriptions(source.subscriptions).toBe(subs);
    });
  });

  it('errors with a TypeError naming a snapshot that is not a Map', () => {
    const w1 = w(1);
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('   -a--b--c--|', {
        a: snap(w1),
        b: 'oops' as unknown as WorkerSnapshot,
        c: snap(),
      });
      const subs = '          ^---!';
      const expected = '      -x--#';
      expectObservable(source.pipe(diffSnapshots())).toBe(
        expected,
        { x: added(w1) },
        new TypeError('diffSnapshots: snapshot must be a Map of uid to WorkerInfo, got "oops"'),
      );
      expectSubscriptions(source.subscriptions).toBe(subs);
    });
  });

  it('errors with a TypeError on a key that differs from its worker uid, emitting nothing of that snapshot', () => {
    const w1 = w(1);
    const w2 = w(2);
    const w3 = w(3);
    const bad: WorkerSnapshot = new Map([
      [w3.uid, w3],
      [w(9).uid, w2],
    ]);
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('   -a--b--c--|', { a: snap(w1), b: bad, c: snap() });
      const subs = '          ^---!';
      const expected = '      -x--#';
      expectObservable(source.pipe(diffSnapshots())).toBe(
        expected,
        { x: added(w1) },
        new TypeError(`diffSnapshots: snapshot key "${w(9).uid}" does not match its worker's uid "${w2.uid}"`),
      );
      expectSubscriptions(source.subscriptions).toBe(subs);
    });
  });

  it('names non-Map values in the TypeError', () => {
    const cases: ReadonlyArray<readonly [unknown, string]> = [
      [null, 'null'],
      [undefined, 'undefined'],
      ['snap', '"snap"'],
      [{}, 'Object {}'],
      [[1], 'array [1]'],
      [new Set(['x']), 'Set {}'],
    ];
    for (const [value, shown] of cases) {
      const input = new Subject<WorkerSnapshot>();
      let error: unknown;
      input.pipe(diffSnapshots()).subscribe({ error: (err: unknown) => (error = err) });
      input.next(value as WorkerSnapshot);
      assert.deepStrictEqual(
        error,
        new TypeError(`diffSnapshots: snapshot must be a Map of uid to WorkerInfo, got ${shown}`),
      );
    }
    const input = new Subject<WorkerSnapshot>();
    let error: unknown;
    input.pipe(diffSnapshots()).subscribe({ error: (err: unknown) => (error = err) });
    input.next(42 as unknown as WorkerSnapshot);
    assert.deepStrictEqual(error, new TypeError('diffSnapshots: snapshot must be a Map of uid to WorkerInfo, got 42'));
  });

  it('stops emitting and unsubscribes the source on early unsubscribe', () => {
    const w1 = w(1);
    const w2 = w(2);
    testScheduler().run(({ hot, expectObservable, expectSubscriptions }) => {
      const source = hot('    -a--b--c--|', { a: snap(w1), b: snap(w1, w2), c: snap() });
      const subs = '          ^---!';
      const unsub = '         ^---!';
      const expected = '      -x---';
      expectObservable(source.pipe(diffSnapshots()), unsub).toBe(expected, { x: added(w1) });
      expectSubscriptions(source.subscriptions).toBe(subs);
    });
  });

  it('keeps state per subscription: a late subscriber starts from the empty set', () => {
    const w1 = w(1);
    const w2 = w(2);
    testScheduler().run(({ hot, expectObservable, expectSubscriptions }) => {
      const source = hot('    -a---b---|', { a: snap(w1), b: snap(w1, w2) });
      const subs1 = '         ^--------!';
      const sub2 = '          ---^';
      const subs2 = '         ---^-----!';
      const expected1 = '     -x---y---|';
      const expected2 = '     -----(xy)|';
      const diffed = source.pipe(diffSnapshots());
      expectObservable(diffed).toBe(expected1, { x: added(w1), y: added(w2) });
      expectObservable(diffed, sub2).toBe(expected2, { x: added(w1), y: added(w2) });
      expectSubscriptions(source.subscriptions).toBe([subs1, subs2]);
    });
  });

  it('completes with an empty source', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold<WorkerSnapshot>('|');
      const subs = '                       (^!)';
      const expected = '                   |';
      expectObservable(source.pipe(diffSnapshots())).toBe(expected);
      expectSubscriptions(source.subscriptions).toBe(subs);
    });
  });

  it('never emits with a never source', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold<WorkerSnapshot>('-');
      const subs = '                       ^';
      const expected = '                   -';
      expectObservable(source.pipe(diffSnapshots())).toBe(expected);
      expectSubscriptions(source.subscriptions).toBe(subs);
    });
  });
});
