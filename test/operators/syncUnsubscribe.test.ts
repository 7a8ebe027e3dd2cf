// Regression: a downstream unsubscribe during a synchronous
// emission must reach the source, as it does through RxJS's own operators.
// Each case pipes a synchronous 200,000-value source through one operator,
// then take(1), and counts how many values the source emitted.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { filter, map, type Observable, queueScheduler, range, take, tap } from 'rxjs';
import type { DiscoveryEvent, WorkerSnapshot } from '../../src/events/types.js';
import type { WorkerInfo } from '../../src/model/types.js';
import { diffSnapshots } from '../../src/operators/diffSnapshots.js';
import { expireWorkers } from '../../src/operators/expireWorkers.js';
import { filterWorkers } from '../../src/operators/filterWorkers.js';
import { PredicatedQueue } from '../../src/operators/PredicatedQueue.js';
import { predicatedTake } from '../../src/operators/predicatedTake.js';
import { shareWorkers } from '../../src/operators/shareWorkers.js';
import { toSnapshots } from '../../src/operators/toSnapshots.js';
import { added, snapshotOf, testWorker } from '../../src/testing/index.js';

const N = 200_000;
/** A small pool of workers the sources cycle through (building 200,000 workers would dominate). */
const pool: readonly WorkerInfo[] = Array.from({ length: 1_000 }, (_, i) => testWorker(i + 1));
const worker = (i: number): WorkerInfo => pool[i % pool.length] as WorkerInfo;

/** A synchronous source of `N` values made by `make`, and a count of the values it emitted. */
function counted<T>(make: (i: number) => T): { source: Observable<T>; emitted: () => number } {
  let count = 0;
  return {
    source: range(0, N).pipe(
      map(make),
      tap(() => (count += 1)),
    ),
    emitted: () => count,
  };
}

/** Subscribes `result`, collects what it emits, and checks it completed synchronously. */
function run<T>(result: Observable<T>): T[] {
  const values: T[] = [];
  let completed = false;
  result.subscribe({ next: (value) => values.push(value), complete: () => (completed = true) });
  assert.equal(completed, true, 'take(1) completes synchronously');
  return values;
}

describe('operators stop a synchronous source when a downstream take(1) unsubscribes', () => {
  it('RxJS filter (the reference): the source emits 1', () => {
    const { source, emitted } = counted((i) => added(worker(i)));
    assert.equal(
      run(
        source.pipe(
          filter(() => true),
          take(1),
        ),
      ).length,
      1,
    );
    assert.equal(emitted(), 1);
  });

  it('filterWorkers', () => {
    const { source, emitted } = counted((i) => added(worker(i)));
    assert.deepEqual(
      run(
        source.pipe(
          filterWorkers(() => true),
          take(1),
        ),
      ),
      [added(worker(0))],
    );
    assert.equal(emitted(), 1);
  });

  it('expireWorkers', () => {
    const { source, emitted } = counted((i) => added(worker(i)));
    assert.deepEqual(run(source.pipe(expireWorkers(60_000), take(1))), [added(worker(0))]);
    assert.equal(emitted(), 1);
  });

  it('shareWorkers', () => {
    const { source, emitted } = counted((i) => added(worker(i)));
    assert.deepEqual(run(source.pipe(shareWorkers(), take(1))), [added(worker(0))]);
    assert.equal(emitted(), 1);
  });

  it('shareWorkers: a second subscriber after the first left starts afresh and stops the source too', () => {
    const { source, emitted } = counted((i) => added(worker(i)));
    const shared = source.pipe(shareWorkers());
    run(shared.pipe(take(1)));
    run(shared.pipe(take(1)));
    assert.equal(emitted(), 2);
  });

  it('toSnapshots (queueScheduler: one snapshot per event)', () => {
    const { source, emitted } = counted((i) => added(worker(i)));
    assert.deepEqual(run(source.pipe(toSnapshots(queueScheduler), take(1))), [snapshotOf(worker(0))]);
    assert.equal(emitted(), 1);
  });

  it('diffSnapshots', () => {
    const snapshots: readonly WorkerSnapshot[] = [snapshotOf(worker(0)), snapshotOf(worker(1))];
    const { source, emitted } = counted((i) => snapshots[i % 2] as WorkerSnapshot);
    assert.deepEqual(run(source.pipe(diffSnapshots(), take(1))), [added(worker(0))]);
    assert.equal(emitted(), 1);
  });

  it('diffSnapshots: one snapshot of 200,000 workers stops emitting its events after the first', () => {
    const big = new Map<string, WorkerInfo>();
    for (let i = 1; i <= N; i += 1) {
      const w = testWorker(i);
      big.set(w.uid, w);
    }
    let events = 0;
    const result: DiscoveryEvent[] = [];
    range(0, 1)
      .pipe(
        map(() => big as WorkerSnapshot),
        diffSnapshots(),
        tap(() => (events += 1)),
        take(1),
      )
      .subscribe((event) => result.push(event));
    assert.equal(result.length, 1);
    assert.equal(events, 1);
  });

  it('predicatedTake', () => {
    const { source, emitted } = counted((i) => i);
    assert.deepEqual(
      run(
        source.pipe(
          predicatedTake((i: number) => i % 2 === 1, Infinity),
          take(1),
        ),
      ),
      [1],
    );
    assert.equal(emitted(), 2);
  });

  it('PredicatedQueue.take: a taker that wants 1 of 200,000 queued items takes 1; the rest stay queued', () => {
    const queue = new PredicatedQueue<number>();
    for (let i = 0; i < N; i += 1) queue.tryPut(i);
    let delivered = 0;
    const got = run(
      queue
        .take(() => true, Infinity)
        .pipe(
          tap(() => (delivered += 1)),
          take(1),
        ),
    );
    assert.deepEqual(got, [0]);
    assert.equal(delivered, 1);
    assert.equal(queue.size, N - 1);
  });

  it('a chain of every event operator', () => {
    const { source, emitted } = counted((i) => added(worker(i)));
    const result = source.pipe(
      expireWorkers(60_000),
      filterWorkers(() => true),
      shareWorkers(),
      toSnapshots(queueScheduler),
      diffSnapshots(),
      take(1),
    );
    assert.deepEqual(run(result), [added(worker(0))]);
    assert.equal(emitted(), 1);
  });
});
