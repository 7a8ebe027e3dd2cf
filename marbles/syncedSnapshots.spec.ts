import { describe, it } from 'node:test';
import { SYNCED } from '../src/events/discoveryEvent.js';
import type { DiscoveryItem } from '../src/events/types.js';
import { syncedSnapshots } from '../src/operators/syncedSnapshots.js';
import { added, dropped, snapshotOf, testWorker, updated, workerTestScheduler } from '../src/testing/index.js';

const gpu = (worker: { tags: readonly string[] }): boolean => worker.tags.includes('gpu');

describe('syncedSnapshots (marbles): Discovery.snapshots()', () => {
  it('emits nothing while loading, then the initial state, then one snapshot per burst', () => {
    const w1 = testWorker(1);
    const w2 = testWorker(2);
    const w3 = testWorker(3);
    const w2v2 = testWorker(2, { version: '2.0.0' });
    workerTestScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold<DiscoveryItem>('  --a--b--S-----c--(de)--|', {
        a: added(w1),
        b: added(w2),
        S: SYNCED,
        c: added(w3),
        d: updated(w2v2),
        e: dropped(w1),
      });
      const subs = '                     ^----------------------!';
      const expected = '                 --------A-----B--C-----|';
      expectObservable(source.pipe(syncedSnapshots(undefined))).toBe(expected, {
        A: snapshotOf(w1, w2),
        B: snapshotOf(w1, w2, w3),
        C: snapshotOf(w2v2, w3),
      });
      expectSubscriptions(source.subscriptions).toBe(subs);
    });
  });

  it('an empty pool is an empty first snapshot ("no workers", not "loading")', () => {
    const w1 = testWorker(1);
    workerTestScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold<DiscoveryItem>('  -----S---a--|', { S: SYNCED, a: added(w1) });
      const subs = '                     ^-----------!';
      const expected = '                 -----E---F--|';
      expectObservable(source.pipe(syncedSnapshots(undefined))).toBe(expected, { E: snapshotOf(), F: snapshotOf(w1) });
      expectSubscriptions(source.subscriptions).toBe(subs);
    });
  });

  it('a synchronous initial burst and its marker are one snapshot; a second marker is ignored', () => {
    const w1 = testWorker(1);
    const w2 = testWorker(2);
    workerTestScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold<DiscoveryItem>('  (abS)--S--|', { a: added(w1), b: added(w2), S: SYNCED });
      const subs = '                     ^---------!';
      const expected = '                 A---------|';
      expectObservable(source.pipe(syncedSnapshots(undefined))).toBe(expected, { A: snapshotOf(w1, w2) });
      expectSubscriptions(source.subscriptions).toBe(subs);
    });
  });

  it('with a predicate: only passing workers, transitions in and out, and changes of others emit nothing', () => {
    const g1 = testWorker(1, { tags: ['gpu'] });
    const c2 = testWorker(2);
    const g2 = testWorker(2, { tags: ['gpu'] });
    workerTestScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold<DiscoveryItem>('  -a-b-S--c--x--|', {
        a: added(g1),
        b: added(c2),
        S: SYNCED,
        c: updated(g2),
        x: updated(c2),
      });
      const subs = '                     ^-------------!';
      const expected = '                 -----A--B--C--|';
      expectObservable(source.pipe(syncedSnapshots(gpu))).toBe(expected, {
        A: snapshotOf(g1),
        B: snapshotOf(g1, g2),
        C: snapshotOf(g1),
      });
      expectSubscriptions(source.subscriptions).toBe(subs);
    });
  });

  it('a throwing predicate errors the stream and unsubscribes the source', () => {
    const w1 = testWorker(1);
    const boom = new Error('predicate failed');
    workerTestScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold<DiscoveryItem>('  -S--a--b-|', { S: SYNCED, a: added(w1), b: added(testWorker(2)) });
      const subs = '                     ^---!';
      const expected = '                 -E--#';
      const predicate = (): boolean => {
        throw boom;
      };
      expectObservable(source.pipe(syncedSnapshots(predicate))).toBe(expected, { E: snapshotOf() }, boom);
      expectSubscriptions(source.subscriptions).toBe(subs);
    });
  });

  it('forwards a source error at once', () => {
    const w1 = testWorker(1);
    workerTestScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold<DiscoveryItem>('  -a-S--#', { a: added(w1), S: SYNCED });
      const subs = '                     ^-----!';
      const expected = '                 ---A--#';
      expectObservable(source.pipe(syncedSnapshots(undefined))).toBe(expected, { A: snapshotOf(w1) });
      expectSubscriptions(source.subscriptions).toBe(subs);
    });
  });

  it('early unsubscribe releases the source', () => {
    const w1 = testWorker(1);
    workerTestScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold<DiscoveryItem>('  -S--a--a--|', { S: SYNCED, a: added(w1) });
      const subs = '                     ^---!';
      const unsub = '                    ----!';
      const expected = '                 -E---';
      expectObservable(source.pipe(syncedSnapshots(undefined)), unsub).toBe(expected, { E: snapshotOf() });
      expectSubscriptions(source.subscriptions).toBe(subs);
    });
  });

  it('empty and never: nothing is ever known, so nothing is emitted', () => {
    workerTestScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const empty = cold<DiscoveryItem>('   |');
      const never = cold<DiscoveryItem>('   -');
      expectObservable(empty.pipe(syncedSnapshots(undefined))).toBe('|');
      expectObservable(never.pipe(syncedSnapshots(undefined))).toBe('-');
      expectSubscriptions(empty.subscriptions).toBe('(^!)');
      expectSubscriptions(never.subscriptions).toBe('^');
    });
  });
});
