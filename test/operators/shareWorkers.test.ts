import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Observable, retry, Subject, take, type Subscription } from 'rxjs';
import { discoveryEvent } from '../../src/events/discoveryEvent.js';
import type { DiscoveryEvent } from '../../src/events/types.js';
import type { WorkerInfo } from '../../src/model/types.js';
import { workerInfo } from '../../src/model/workerInfo.js';
import { shareWorkers } from '../../src/operators/shareWorkers.js';

const w1 = workerInfo({ uid: '11111111-1111-4111-8111-111111111111', address: 'h1:1', pid: 1, version: '1' });
const w2 = workerInfo({ uid: '22222222-2222-4222-8222-222222222222', address: 'h2:1', pid: 2, version: '1' });
const w3 = workerInfo({ uid: '33333333-3333-4333-8333-333333333333', address: 'h3:1', pid: 3, version: '1' });

const added = (worker: WorkerInfo): DiscoveryEvent => discoveryEvent('worker-added', worker);
const dropped = (worker: WorkerInfo): DiscoveryEvent => discoveryEvent('worker-dropped', worker);

/** Renders events compactly: `+1` added w1, `~2` updated w2, `-3` dropped w3. */
function show(events: readonly DiscoveryEvent[]): string[] {
  const sign = { 'worker-added': '+', 'worker-updated': '~', 'worker-dropped': '-' } as const;
  const names = new Map([
    [w1.uid, '1'],
    [w2.uid, '2'],
    [w3.uid, '3'],
  ]);
  return events.map((event) => `${sign[event.type]}${names.get(event.worker.uid) ?? event.worker.uid}`);
}

/** A source that counts its subscriptions and unsubscriptions. */
function counted(subject: Subject<DiscoveryEvent>): {
  source: Observable<DiscoveryEvent>;
  subs: number;
  unsubs: number;
} {
  const counts = { source: new Observable<DiscoveryEvent>(), subs: 0, unsubs: 0 };
  counts.source = new Observable<DiscoveryEvent>((subscriber) => {
    counts.subs++;
    const inner = subject.subscribe(subscriber);
    return () => {
      counts.unsubs++;
      inner.unsubscribe();
    };
  });
  return counts;
}

describe('shareWorkers (re-entrancy and edge cases)', () => {
  it('replays synchronously on subscribe', () => {
    const subject = new Subject<DiscoveryEvent>();
    const shared = subject.pipe(shareWorkers());
    const first = shared.subscribe();
    subject.next(added(w1));
    subject.next(added(w2));
    const seen: DiscoveryEvent[] = [];
    const late = shared.subscribe((event) => seen.push(event));
    assert.deepEqual(show(seen), ['+1', '+2']);
    late.unsubscribe();
    first.unsubscribe();
  });

  it("a subscriber joining from inside another one's next gets that event once, in its replay", () => {
    const subject = new Subject<DiscoveryEvent>();
    const shared = subject.pipe(shareWorkers());
    const a: DiscoveryEvent[] = [];
    const b: DiscoveryEvent[] = [];
    let inner: Subscription | undefined;
    const outer = shared.subscribe((event) => {
      a.push(event);
      if (event.worker.uid === w2.uid && inner === undefined) {
        inner = shared.subscribe((e) => b.push(e));
      }
    });
    subject.next(added(w1));
    subject.next(added(w2));
    subject.next(added(w3));
    subject.next(dropped(w1));
    assert.deepEqual(show(a), ['+1', '+2', '+3', '-1']);
    assert.deepEqual(show(b), ['+1', '+2', '+3', '-1']);
    inner?.unsubscribe();
    outer.unsubscribe();
  });

  it('a subscriber unsubscribing another from inside next: the other gets nothing more, the rest go on', () => {
    const subject = new Subject<DiscoveryEvent>();
    const shared = subject.pipe(shareWorkers());
    const a: DiscoveryEvent[] = [];
    const b: DiscoveryEvent[] = [];
    const c: DiscoveryEvent[] = [];
    const others: Subscription[] = [];
    const subA = shared.subscribe((event) => {
      a.push(event);
      if (event.worker.uid === w2.uid) others[0]?.unsubscribe();
    });
    others.push(shared.subscribe((event) => b.push(event)));
    const subC = shared.subscribe((event) => c.push(event));
    subject.next(added(w1));
    subject.next(added(w2));
    subject.next(added(w3));
    assert.deepEqual(show(a), ['+1', '+2', '+3']);
    assert.deepEqual(show(b), ['+1']);
    assert.deepEqual(show(c), ['+1', '+2', '+3']);
    subA.unsubscribe();
    subC.unsubscribe();
  });

  it('a subscriber unsubscribing itself from inside next does not end the others', () => {
    const subject = new Subject<DiscoveryEvent>();
    const counts = counted(subject);
    const shared = counts.source.pipe(shareWorkers());
    const a: DiscoveryEvent[] = [];
    const b: DiscoveryEvent[] = [];
    const subA: Subscription = shared.subscribe((event) => {
      a.push(event);
      subA.unsubscribe();
    });
    const subB = shared.subscribe((event) => b.push(event));
    subject.next(added(w1));
    subject.next(added(w2));
    assert.deepEqual(show(a), ['+1']);
    assert.deepEqual(show(b), ['+1', '+2']);
    assert.equal(counts.subs, 1);
    assert.equal(counts.unsubs, 0);
    subB.unsubscribe();
    assert.equal(counts.unsubs, 1);
  });

  it('events a subscriber causes from inside next reach every subscriber in source order', () => {
    const subject = new Subject<DiscoveryEvent>();
    const shared = subject.pipe(shareWorkers());
    const a: DiscoveryEvent[] = [];
    const b: DiscoveryEvent[] = [];
    const subA = shared.subscribe((event) => {
      a.push(event);
      // Reacting to an add by withdrawing the worker at once.
      if (event.type === 'worker-added' && event.worker.uid === w1.uid) subject.next(dropped(w1));
    });
    const subB = shared.subscribe((event) => b.push(event));
    subject.next(added(w1));
    assert.deepEqual(show(a), ['+1', '-1']);
    assert.deepEqual(show(b), ['+1', '-1']);
    // A late subscriber sees the final state: w1 is gone.
    const late: DiscoveryEvent[] = [];
    shared.subscribe((event) => late.push(event)).unsubscribe();
    assert.deepEqual(late, []);
    subA.unsubscribe();
    subB.unsubscribe();
  });

  it("events caused during a late subscriber's replay reach it after the replay, once", () => {
    const subject = new Subject<DiscoveryEvent>();
    const shared = subject.pipe(shareWorkers());
    const a: DiscoveryEvent[] = [];
    const subA = shared.subscribe((event) => a.push(event));
    subject.next(added(w1));
    subject.next(added(w2));
    const late: DiscoveryEvent[] = [];
    const subLate = shared.subscribe((event) => {
      late.push(event);
      // On the first replayed worker, drop the second and add a third.
      if (late.length === 1) {
        subject.next(dropped(w2));
        subject.next(added(w3));
      }
    });
    assert.deepEqual(show(late), ['+1', '+2', '-2', '+3']);
    assert.deepEqual(show(a), ['+1', '+2', '-2', '+3']);
    subLate.unsubscribe();
    subA.unsubscribe();
  });

  it('a subscriber leaving during its replay stops its replay; the source stays (infinite grace)', () => {
    const subject = new Subject<DiscoveryEvent>();
    const counts = counted(subject);
    const shared = counts.source.pipe(shareWorkers({ gracePeriod: Infinity }));
    shared.subscribe().unsubscribe();
    subject.next(added(w1));
    subject.next(added(w2));
    const seen: DiscoveryEvent[] = [];
    // take(1) unsubscribes synchronously, from inside the first replayed next.
    shared.pipe(take(1)).subscribe((event) => seen.push(event));
    assert.deepEqual(show(seen), ['+1']);
    assert.equal(counts.subs, 1);
    assert.equal(counts.unsubs, 0); // gracePeriod: Infinity keeps it
  });

  it('the last subscriber leaving and a new one joining inside the same next reconnects afresh', () => {
    const subject = new Subject<DiscoveryEvent>();
    const counts = counted(subject);
    const shared = counts.source.pipe(shareWorkers());
    const second: DiscoveryEvent[] = [];
    let next: Subscription | undefined;
    const first: Subscription = shared.subscribe((event) => {
      if (event.worker.uid !== w2.uid) return;
      first.unsubscribe();
      next = shared.subscribe((e) => second.push(e));
    });
    subject.next(added(w1));
    subject.next(added(w2));
    assert.equal(counts.subs, 2);
    assert.equal(counts.unsubs, 1);
    // The fresh connection starts empty: no replay of the old state.
    assert.deepEqual(second, []);
    subject.next(added(w3));
    assert.deepEqual(show(second), ['+3']);
    next?.unsubscribe();
    assert.equal(counts.unsubs, 2);
  });

  it('a subscriber that subscribes and unsubscribes before any event receives nothing', () => {
    const subject = new Subject<DiscoveryEvent>();
    const shared = subject.pipe(shareWorkers());
    const keep = shared.subscribe();
    const seen: DiscoveryEvent[] = [];
    shared.subscribe((event) => seen.push(event)).unsubscribe();
    subject.next(added(w1));
    assert.deepEqual(seen, []);
    keep.unsubscribe();
  });

  it('resubscribes afresh under retry() after a source error', () => {
    let attempt = 0;
    const source = new Observable<DiscoveryEvent>((subscriber) => {
      attempt++;
      subscriber.next(added(attempt === 1 ? w1 : w2));
      if (attempt === 1) subscriber.error(new Error('boom'));
    });
    const shared = source.pipe(shareWorkers());
    const seen: DiscoveryEvent[] = [];
    const sub = shared.pipe(retry(1)).subscribe((event) => seen.push(event));
    assert.deepEqual(show(seen), ['+1', '+2']);
    // The state was reset by the error: a late subscriber sees only w2.
    const late: DiscoveryEvent[] = [];
    shared.subscribe((event) => late.push(event)).unsubscribe();
    assert.deepEqual(show(late), ['+2']);
    sub.unsubscribe();
  });

  it("releases the source when the last subscriber leaves during the source's synchronous burst", () => {
    const subject = new Subject<DiscoveryEvent>();
    const counts = counted(subject);
    // A source that emits a burst on subscribe, then keeps a live subscription.
    const burst = new Observable<DiscoveryEvent>((subscriber) => {
      subscriber.next(added(w1));
      subscriber.next(added(w2));
      return counts.source.subscribe(subscriber);
    });
    const seen: DiscoveryEvent[] = [];
    burst.pipe(shareWorkers(), take(1)).subscribe((event) => seen.push(event));
    assert.deepEqual(show(seen), ['+1']);
    assert.equal(counts.unsubs, counts.subs);
    assert.equal(subject.observed, false);
  });

  it('rejects a bad configuration with a TypeError naming the value', () => {
    assert.throws(() => shareWorkers({ gracePeriod: -1 }), /gracePeriod must be a non-negative number.*-1/);
    assert.throws(() => shareWorkers({ gracePeriod: Number.NaN }), /gracePeriod .* NaN/);
    assert.throws(() => shareWorkers({ gracePeriod: '5' as unknown as number }), /gracePeriod .* "5"/);
    assert.throws(() => shareWorkers({ scheduler: {} as never }), /scheduler must be a SchedulerLike/);
    assert.throws(() => shareWorkers(null as never), /config must be an object, got null/);
  });
});
