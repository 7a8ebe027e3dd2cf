import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Observable, SchedulerAction, SchedulerLike } from 'rxjs';
import type { DiscoveryEvent } from '../src/events/types.js';
import { describeValue } from '../src/model/describeValue.js';
import { workerInfo } from '../src/model/workerInfo.js';
import { shareWorkers } from '../src/operators/shareWorkers.js';
import { added, dropped, updated, workerTestScheduler } from '../src/testing/index.js';

const w1 = workerInfo({ uid: '11111111-1111-4111-8111-111111111111', address: 'h1:1', pid: 1, version: '1' });
const w2 = workerInfo({ uid: '22222222-2222-4222-8222-222222222222', address: 'h2:1', pid: 2, version: '1' });
const w2b = workerInfo({ ...w2, version: '2' });
const w3 = workerInfo({ uid: '33333333-3333-4333-8333-333333333333', address: 'h3:1', pid: 3, version: '1' });

/** a = added 1, b = added 2, c = added 3, u = updated 2 (2'), v = added 2', x = dropped 1, y = dropped 2' */
const values: Record<string, DiscoveryEvent> = {
  a: added(w1),
  b: added(w2),
  c: added(w3),
  u: updated(w2b),
  v: added(w2b),
  x: dropped(w1),
  y: dropped(w2b),
};

const testScheduler = workerTestScheduler;

describe('shareWorkers (marbles)', () => {
  it('multicasts one subscription; late subscribers get the current set, then live events', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('  --a---b---x------u----c--|', values);
      const sub1 = '         ^-----------------!';
      const expected1 = '    --a---b---x------u-';
      const sub2 = '         ------------^-------------';
      const expected2 = '    ------------b----u----c--|';
      const sub3 = '         -------------------^------';
      const expected3 = '    -------------------v--c--|';
      const sourceSubs = '   ^------------------------!';

      const shared = source.pipe(shareWorkers());
      expectObservable(shared, sub1).toBe(expected1, values);
      expectObservable(shared, sub2).toBe(expected2, values);
      expectObservable(shared, sub3).toBe(expected3, values);
      expectSubscriptions(source.subscriptions).toBe(sourceSubs);
    });
  });

  it('replays the latest metadata of each current worker and omits dropped ones, in first-added order', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('  -a-b-u-x-c----', values);
      const sub1 = '         ^-------------';
      const expected1 = '    -a-b-u-x-c----';
      const sub2 = '         ----------^---';
      const expected2 = '    ----------(vc)';
      const sourceSubs = '   ^-------------';

      const shared = source.pipe(shareWorkers());
      expectObservable(shared, sub1).toBe(expected1, values);
      expectObservable(shared, sub2).toBe(expected2, values);
      expectSubscriptions(source.subscriptions).toBe(sourceSubs);
    });
  });

  it('errors every subscriber when the source errors, then resubscribes afresh for the next one', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('  -a--b--#', values);
      const sub1 = '         ^----------------';
      const expected1 = '    -a--b--#';
      const sub2 = '         ---^-------------';
      const expected2 = '    ---ab--#';
      const sub3 = '         ---------^-------';
      const expected3 = '    ----------a--b--#';
      const sourceSubs = ['                    ^------!', '                    ---------^------!'];

      const shared = source.pipe(shareWorkers());
      expectObservable(shared, sub1).toBe(expected1, values);
      expectObservable(shared, sub2).toBe(expected2, values);
      expectObservable(shared, sub3).toBe(expected3, values);
      expectSubscriptions(source.subscriptions).toBe(sourceSubs);
    });
  });

  it('completes every subscriber when the source completes, and the next one starts afresh', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('  -a--b|', values);
      const sub1 = '         ^--------';
      const expected1 = '    -a--b|';
      const sub2 = '         -------^-';
      const expected2 = '    --------a--b|';
      const sourceSubs = ['                    ^----!', '                    -------^----!'];

      const shared = source.pipe(shareWorkers());
      expectObservable(shared, sub1).toBe(expected1, values);
      expectObservable(shared, sub2).toBe(expected2, values);
      expectSubscriptions(source.subscriptions).toBe(sourceSubs);
    });
  });

  it('keeps the other subscribers going when one unsubscribes early', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('  -a--b--c--x--|', values);
      const sub1 = '         ^--!';
      const expected1 = '    -a-';
      const sub2 = '         ^------------';
      const expected2 = '    -a--b--c--x--|';
      const sourceSubs = '   ^------------!';

      const shared = source.pipe(shareWorkers());
      expectObservable(shared, sub1).toBe(expected1, values);
      expectObservable(shared, sub2).toBe(expected2, values);
      expectSubscriptions(source.subscriptions).toBe(sourceSubs);
    });
  });

  it('unsubscribes from the source as soon as the last subscriber leaves (no grace period)', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('  -a--b--c--|', values);
      const sub1 = '         ^--!';
      const expected1 = '    -a-';
      const sub2 = '         --^---!';
      const expected2 = '    --a-b-';
      const sub3 = '         ---------^--';
      const expected3 = '    ----------a--b--c--|';
      const sourceSubs = ['                    ^-----!', '                    ---------^---------!'];

      const shared = source.pipe(shareWorkers());
      expectObservable(shared, sub1).toBe(expected1, values);
      expectObservable(shared, sub2).toBe(expected2, values);
      expectObservable(shared, sub3).toBe(expected3, values);
      expectSubscriptions(source.subscriptions).toBe(sourceSubs);
    });
  });

  it('reuses the live source for a subscriber arriving within the grace period', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('  -a--x-b---c------', values);
      const sub1 = '         ^------!';
      const expected1 = '    -a--x-b-';
      const sub2 = '         ---------^--!';
      const expected2 = '    ---------bc--';
      const sourceSubs = '   ^---------------!';
      //                                 last left at 12, torn down 4 frames later

      const shared = source.pipe(shareWorkers({ gracePeriod: 4 }));
      expectObservable(shared, sub1).toBe(expected1, values);
      expectObservable(shared, sub2).toBe(expected2, values);
      expectSubscriptions(source.subscriptions).toBe(sourceSubs);
    });
  });

  it('subscribes afresh for a subscriber arriving after the grace period', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('  -a--b----------', values);
      const sub1 = '         ^--!';
      const expected1 = '    -a-';
      const sub2 = '         ---------^-----';
      const expected2 = '    ----------a--b-';
      const sourceSubs = ['                    ^-----!', '                    ---------^-----'];

      const shared = source.pipe(shareWorkers({ gracePeriod: 3 }));
      expectObservable(shared, sub1).toBe(expected1, values);
      expectObservable(shared, sub2).toBe(expected2, values);
      expectSubscriptions(source.subscriptions).toBe(sourceSubs);
    });
  });

  it('times the grace period on the given scheduler', () => {
    const scheduler = testScheduler();
    const delays: (number | undefined)[] = [];
    const spy: SchedulerLike = {
      now: () => scheduler.now(),
      schedule: (work: (this: SchedulerAction<unknown>, state?: unknown) => void, delay?: number, state?: unknown) => {
        delays.push(delay);
        return scheduler.schedule(work, delay, state);
      },
    };
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('  -a--b-----', values);
      const sub1 = '         ^--!';
      const expected1 = '    -a-';
      const sourceSubs = '   ^-----!';

      const shared = source.pipe(shareWorkers({ gracePeriod: 3, scheduler: spy }));
      expectObservable(shared, sub1).toBe(expected1, values);
      expectSubscriptions(source.subscriptions).toBe(sourceSubs);
    });
    assert.deepEqual(delays, [3]);
  });

  it('keeps the source forever with an infinite grace period', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('  -a--b---------c', values);
      const sub1 = '         ^--!';
      const expected1 = '    -a-';
      const sub2 = '         ----------^----';
      const expected2 = '    ----------(ab)c';
      const sourceSubs = '   ^--------------';

      const shared = source.pipe(shareWorkers({ gracePeriod: Infinity }));
      expectObservable(shared, sub1).toBe(expected1, values);
      expectObservable(shared, sub2).toBe(expected2, values);
      expectSubscriptions(source.subscriptions).toBe(sourceSubs);
    });
  });

  it('errors every subscriber with a TypeError on a value that is not a DiscoveryEvent', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const bad = { type: 'worker-renamed', worker: w1 };
      const source = cold<unknown>('-a--z--b', { ...values, z: bad });
      const sub1 = '         ^--------';
      const expected1 = '    -a--#';
      const sub2 = '         --^------';
      const expected2 = '    --a-#';
      const sourceSubs = '   ^---!';

      const error = new TypeError(`shareWorkers: expected a DiscoveryEvent, got ${describeValue(bad)}`);
      const shared = (source as Observable<DiscoveryEvent>).pipe(shareWorkers());
      expectObservable(shared, sub1).toBe(expected1, values, error);
      expectObservable(shared, sub2).toBe(expected2, values, error);
      expectSubscriptions(source.subscriptions).toBe(sourceSubs);
    });
  });

  it('completes every subscriber of an empty source', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold<DiscoveryEvent>('|');
      const sub1 = '         ^--';
      const expected1 = '    |';
      const sub2 = '         --^';
      const expected2 = '    --|';
      const sourceSubs = ['  (^!)', '--(^!)'];

      const shared = source.pipe(shareWorkers());
      expectObservable(shared, sub1).toBe(expected1);
      expectObservable(shared, sub2).toBe(expected2);
      expectSubscriptions(source.subscriptions).toBe(sourceSubs);
    });
  });

  it('emits nothing from a never source and unsubscribes it when the last subscriber leaves', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold<DiscoveryEvent>('-');
      const sub1 = '         ^---!';
      const sub2 = '         --^-----!';
      const expected = '     ---------';
      const sourceSubs = '   ^-------!';

      const shared = source.pipe(shareWorkers());
      expectObservable(shared, sub1).toBe(expected);
      expectObservable(shared, sub2).toBe(expected);
      expectSubscriptions(source.subscriptions).toBe(sourceSubs);
    });
  });
});
