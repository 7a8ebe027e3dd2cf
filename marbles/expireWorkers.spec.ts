import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  NEVER,
  Subject,
  asyncScheduler,
  concat,
  from,
  interval,
  mergeMap,
  take,
  type SchedulerAction,
  type SchedulerLike,
  type Subscription,
} from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import type { DiscoveryEvent } from '../src/events/types.js';
import { expireWorkers } from '../src/operators/expireWorkers.js';
import {
  added,
  dropped,
  updated,
  testWorker as w,
  workerTestScheduler as testScheduler,
} from '../src/testing/index.js';

/** Wraps a scheduler, recording every action it schedules. */
function spyScheduler(inner: SchedulerLike): SchedulerLike & { readonly actions: Subscription[] } {
  const actions: Subscription[] = [];
  const schedule = (
    work: (this: SchedulerAction<unknown>, state?: unknown) => void,
    delay?: number,
    state?: unknown,
  ) => {
    const action = inner.schedule(work, delay, state);
    actions.push(action);
    return action;
  };
  return { actions, now: () => inner.now(), schedule };
}

describe('expireWorkers (marbles)', () => {
  it('normalises sightings and drops workers not sighted within ttl', () => {
    const w1 = w(1);
    const w1again = w(1); // same metadata, another object
    const w2 = w(2);
    const w2v2 = w(2, { version: '2.0.0' });
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('   -a-b-a-c--------|', { a: added(w1), b: updated(w2), c: added(w2v2) });
      const subs = '          ^---------------!';
      const expected = '      -a-b---c--D-E---|';
      expectObservable(source.pipe(expireWorkers(5))).toBe(expected, {
        a: added(w1),
        b: added(w2), // first sighting, whatever its type
        c: updated(w2v2), // changed metadata, whatever its type
        D: dropped(w1again),
        E: dropped(w2v2),
      });
      expectSubscriptions(source.subscriptions).toBe(subs);
    });
  });

  it('restarts the timer on every unchanged sighting', () => {
    const w1 = w(1);
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('   -a--a--u--a------------|', { a: added(w1), u: updated(w(1)) });
      const subs = '          ^----------------------!';
      const expected = '      -a-------------D-------|';
      expectObservable(source.pipe(expireWorkers(5))).toBe(expected, { a: added(w1), D: dropped(w1) });
      expectSubscriptions(source.subscriptions).toBe(subs);
    });
  });

  it('drops every worker whose lease ran out at the same time, in sighting order', () => {
    const [w1, w2, w3] = [w(1), w(2), w(3)];
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('   -(bac)--b-----------|', { a: added(w1), b: added(w2), c: added(w3) });
      const subs = '          ^-------------------!';
      const expected = '      -(bac)----(AC)---B--|';
      expectObservable(source.pipe(expireWorkers(9))).toBe(expected, {
        a: added(w1),
        b: added(w2),
        c: added(w3),
        A: dropped(w1),
        B: dropped(w2),
        C: dropped(w3),
      });
      expectSubscriptions(source.subscriptions).toBe(subs);
    });
  });

  it('passes an explicit drop of a known worker through and cancels its timer', () => {
    const w1 = w(1);
    const w2 = w(2);
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('   -a-b-d-x---------|', { a: added(w1), b: added(w2), d: dropped(w1), x: dropped(w(7)) });
      const subs = '          ^----------------!';
      const expected = '      -a-b-d---E-------|';
      expectObservable(source.pipe(expireWorkers(6))).toBe(expected, {
        a: added(w1),
        b: added(w2),
        d: dropped(w1),
        E: dropped(w2),
      });
      expectSubscriptions(source.subscriptions).toBe(subs);
    });
  });

  it('sees a worker re-added after its expiry as new', () => {
    const w1 = w(1);
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('   -a------a---|', { a: updated(w1) });
      const subs = '          ^-----------!';
      const expected = '      -a---D--a---|';
      expectObservable(source.pipe(expireWorkers(4))).toBe(expected, { a: added(w1), D: dropped(w1) });
      expectSubscriptions(source.subscriptions).toBe(subs);
    });
  });

  it('forwards a source error and cancels its timers', () => {
    const w1 = w(1);
    const inner = new TestScheduler((a, e) => assert.deepStrictEqual(a, e));
    const spy = spyScheduler(inner);
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('   -a--#', { a: added(w1) }, new Error('boom'));
      const subs = '          ^---!';
      const expected = '      -a--#';
      expectObservable(source.pipe(expireWorkers(10))).toBe(expected, { a: added(w1) }, new Error('boom'));
      expectSubscriptions(source.subscriptions).toBe(subs);
    });
    // Outside marbles: after the error, no action is left scheduled.
    const input = new Subject<DiscoveryEvent>();
    let error: unknown;
    input.pipe(expireWorkers(10, spy)).subscribe({ error: (err: unknown) => (error = err) });
    input.next(added(w1));
    assert.equal(spy.actions.length, 1);
    assert.equal(spy.actions[0]?.closed, false);
    input.error(new Error('boom'));
    assert.deepStrictEqual(error, new Error('boom'));
    assert.equal(spy.actions[0]?.closed, true);
  });

  it('passes completion through, clearing timers', () => {
    const w1 = w(1);
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('   -a--|', { a: added(w1) });
      const subs = '          ^---!';
      const expected = '      -a--|';
      expectObservable(source.pipe(expireWorkers(10))).toBe(expected, { a: added(w1) });
      expectSubscriptions(source.subscriptions).toBe(subs);
    });
    const spy = spyScheduler(new TestScheduler((a, e) => assert.deepStrictEqual(a, e)));
    const input = new Subject<DiscoveryEvent>();
    input.pipe(expireWorkers(10, spy)).subscribe();
    input.next(added(w1));
    input.complete();
    assert.equal(spy.actions.length, 1);
    assert.equal(spy.actions[0]?.closed, true);
  });

  it('stops on early unsubscribe, cancelling timers', () => {
    const w1 = w(1);
    testScheduler().run(({ hot, expectObservable, expectSubscriptions }) => {
      const source = hot('    -a--------|', { a: added(w1) });
      const subs = '          ^---!';
      const unsub = '         ^---!';
      const expected = '      -a---------';
      expectObservable(source.pipe(expireWorkers(5)), unsub).toBe(expected, { a: added(w1) });
      expectSubscriptions(source.subscriptions).toBe(subs);
    });
    const spy = spyScheduler(new TestScheduler((a, e) => assert.deepStrictEqual(a, e)));
    const input = new Subject<DiscoveryEvent>();
    const subscription = input.pipe(expireWorkers(10, spy)).subscribe();
    input.next(added(w1));
    subscription.unsubscribe();
    assert.equal(spy.actions.length, 1);
    assert.equal(spy.actions[0]?.closed, true);
    assert.equal(input.observed, false);
  });

  it('keeps leases per subscription', () => {
    const w1 = w(1);
    testScheduler().run(({ hot, expectObservable, expectSubscriptions }) => {
      const source = hot('    -a---a------|', { a: added(w1) });
      const subs1 = '         ^-----------!';
      const sub2 = '          ---^';
      const subs2 = '         ---^--------!';
      const expected1 = '     -a--------D-|';
      const expected2 = '     -----a----D-|';
      const expiring = source.pipe(expireWorkers(5));
      expectObservable(expiring).toBe(expected1, { a: added(w1), D: dropped(w1) });
      expectObservable(expiring, sub2).toBe(expected2, { a: added(w1), D: dropped(w1) });
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
      expectObservable(source.pipe(expireWorkers(5))).toBe(
        expected,
        { a: added(w1) },
        new TypeError('expireWorkers: unknown event type "worker-moved"'),
      );
      expectSubscriptions(source.subscriptions).toBe(subs);
    });
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('   -b--|', { b: { type: 'worker-added', worker: null } as unknown as DiscoveryEvent });
      const subs = '          ^!';
      const expected = '      -#';
      expectObservable(source.pipe(expireWorkers(5))).toBe(
        expected,
        undefined,
        new TypeError('expireWorkers: event has no worker uid: {"type":"worker-added","worker":null}'),
      );
      expectSubscriptions(source.subscriptions).toBe(subs);
    });
  });

  it('completes with an empty source', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold<DiscoveryEvent>('|');
      const subs = '                       (^!)';
      const expected = '                   |';
      expectObservable(source.pipe(expireWorkers(5))).toBe(expected);
      expectSubscriptions(source.subscriptions).toBe(subs);
    });
  });

  it('never emits with a never source', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold<DiscoveryEvent>('-');
      const subs = '                       ^';
      const expected = '                   -';
      expectObservable(source.pipe(expireWorkers(5))).toBe(expected);
      expectSubscriptions(source.subscriptions).toBe(subs);
    });
  });

  it('expires workers of a source that never completes', () => {
    const w1 = w(1);
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('   -a-', { a: added(w1) });
      const subs = '          ^';
      const expected = '      -a---D-';
      expectObservable(source.pipe(expireWorkers(4))).toBe(expected, { a: added(w1), D: dropped(w1) });
      expectSubscriptions(source.subscriptions).toBe(subs);
    });
  });

  it('arms its timer for a synchronous initial burst (as the memory and local backends deliver it)', () => {
    const [w1, w2] = [w(1), w(2)];
    testScheduler().run(({ expectObservable }) => {
      const source = concat(from([added(w1), added(w2)]), NEVER);
      const expected = '(ab)(AB)'; // (ab) spans frames 0-3: the drops fall at frame 4, the ttl
      expectObservable(source.pipe(expireWorkers(4))).toBe(expected, {
        a: added(w1),
        b: added(w2),
        A: dropped(w1),
        B: dropped(w2),
      });
    });
  });

  it('completes with a source that emits and completes synchronously, like from()', () => {
    const [w1, w2] = [w(1), w(2)];
    testScheduler().run(({ expectObservable }) => {
      const source = from([added(w1), updated(w2)]);
      const expected = '(ab|)';
      expectObservable(source.pipe(expireWorkers(4))).toBe(expected, { a: added(w1), b: added(w2) });
    });
  });

  it('schedules one action per subscription, not one per sighting', () => {
    const workers = Array.from({ length: 1000 }, (_, i) => w(i + 1));
    testScheduler().run(({ flush }) => {
      const spy = spyScheduler(asyncScheduler); // virtual inside run()
      const events: DiscoveryEvent[] = [];
      const times: number[] = [];
      // Every worker re-announced on frames 1..10; ttl 5: all drop at frame 15.
      concat(interval(1).pipe(take(10)), NEVER)
        .pipe(
          mergeMap(() => from(workers.map((worker) => added(worker)))),
          expireWorkers(5, spy),
        )
        .subscribe((event) => {
          events.push(event);
          times.push(spy.now());
        });
      flush();
      assert.equal(events.length, 2000);
      assert.deepStrictEqual(
        events.slice(0, 1000),
        workers.map((worker) => added(worker)),
      );
      assert.deepStrictEqual(
        events.slice(1000),
        workers.map((worker) => dropped(worker)),
      );
      assert.deepStrictEqual([...new Set(times)], [1, 15]);
      assert.equal(spy.actions.length, 1);
    });
  });

  it('rejects a ttl that is not a finite positive number, naming it', () => {
    for (const [ttl, shown] of [
      [0, '0'],
      [-1, '-1'],
      [Number.NaN, 'NaN'],
      [Number.POSITIVE_INFINITY, 'Infinity'],
      ['5', '"5"'],
      [undefined, 'undefined'],
    ] as const) {
      assert.throws(() => expireWorkers(ttl as number), {
        name: 'TypeError',
        message: `expireWorkers: ttl must be a finite positive number of milliseconds, got ${shown}`,
      });
    }
  });
});
