import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { distinctUntilChanged, map, type Observable, take, timer } from 'rxjs';
import { PredicatedQueue } from '../src/operators/PredicatedQueue.js';
import { workerTestScheduler } from '../src/testing/index.js';

// Items are letters; upper case stands for a worker tagged 'gpu'.
const isUpper = (item: string): boolean => item === item.toUpperCase();
const any = (): boolean => true;

const testScheduler = workerTestScheduler;

/** Drives a queue from a marble source: each value is `tryPut`, `|` closes it, `#` fails it. */
function feed(queue: PredicatedQueue<string>, source: Observable<string>): void {
  source.subscribe({
    next: (item) => assert.equal(queue.tryPut(item), true, `tryPut(${item})`),
    complete: () => queue.close(),
    error: (err: unknown) => queue.error(err),
  });
}

/** The queue's buffered items at every frame up to `frames`, as a string, changes only. */
function contents(queue: PredicatedQueue<string>, frames: number): Observable<string> {
  return timer(0, 1).pipe(
    take(frames),
    map(() => queue.items.join('')),
    distinctUntilChanged(),
  );
}

describe('PredicatedQueue.take (marbles)', () => {
  it('gives an item to one taker only: two takers, one item', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const queue = new PredicatedQueue<string>();
      const puts = cold('  ---G--H--|');
      const putSubs = '    ^--------!';
      const first = '      ---(G|)';
      const second = '     ------(H|)';
      feed(queue, puts);
      expectObservable(queue.take(isUpper)).toBe(first);
      expectObservable(queue.take(isUpper)).toBe(second);
      expectSubscriptions(puts.subscriptions).toBe(putSubs);
    });
  });

  it('serves takers in subscription order: the earliest taker that accepts an item gets it', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const queue = new PredicatedQueue<string>();
      const puts = cold('   --a--B--C--|');
      const putSubs = '     ^----------!';
      const gpuSub = '      ^';
      const gpuTaker = '    -----(B|)';
      const anySub = '      -^';
      const anyTaker = '    --a-----(C|)';
      const lateSub = '     ---^';
      const lateTaker = '   -----------|';
      feed(queue, puts);
      // Subscribed first, but rejects 'a': 'a' goes to the next taker that accepts it.
      expectObservable(queue.take(isUpper), gpuSub).toBe(gpuTaker);
      expectObservable(queue.take(any, 2), anySub).toBe(anyTaker);
      // Accepts everything too, but subscribed after the 'any' taker: gets nothing.
      expectObservable(queue.take(any), lateSub).toBe(lateTaker);
      expectSubscriptions(puts.subscriptions).toBe(putSubs);
    });
  });

  it('keeps items that arrive before any taker, and hands them out oldest first', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const queue = new PredicatedQueue<string>();
      const puts = cold('  -abC---------');
      const putSubs = '    ^------------';
      const sub = '        -----^';
      const taker = '      -----(ab|)';
      const sub2 = '       -------^';
      const taker2 = '     -------(C|)';
      const left = '       xyzw-v-(u|)';
      feed(queue, puts);
      expectObservable(queue.take(any, 2), sub).toBe(taker);
      expectObservable(queue.take(any), sub2).toBe(taker2);
      expectObservable(contents(queue, 8)).toBe(left, {
        x: '',
        y: 'a',
        z: 'ab',
        w: 'abC',
        v: 'C',
        u: '',
      });
      expectSubscriptions(puts.subscriptions).toBe(putSubs);
    });
  });

  it('leaves an item nobody wants in the queue for a later taker', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const queue = new PredicatedQueue<string>();
      const puts = cold('  --a---B-----');
      const putSubs = '    ^-----------';
      const gpu = '        ------(B|)';
      const sub = '        ---------^';
      const later = '      ---------(a|)';
      feed(queue, puts);
      expectObservable(queue.take(isUpper)).toBe(gpu);
      expectObservable(queue.take(any), sub).toBe(later);
      expectSubscriptions(puts.subscriptions).toBe(putSubs);
    });
  });

  it('loses no item when a taker unsubscribes: the next taker gets it', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const queue = new PredicatedQueue<string>();
      const puts = cold('  -----G------');
      const putSubs = '    ^-----------';
      const sub = '        ^--!';
      const gone = '       ----';
      const sub2 = '       -------^';
      const next = '       -------(G|)';
      feed(queue, puts);
      expectObservable(queue.take(isUpper), sub).toBe(gone);
      expectObservable(queue.take(isUpper), sub2).toBe(next);
      expectSubscriptions(puts.subscriptions).toBe(putSubs);
    });
  });

  it('loses no item when a taker unsubscribes in the middle of a synchronous batch', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const queue = new PredicatedQueue<string>();
      const puts = cold('  abc------');
      const putSubs = '    ^--------';
      const sub = '        --^';
      const one = '        --(a|)';
      const sub2 = '       ----^';
      const rest = '       ----(bc|)';
      feed(queue, puts);
      // Would take 3, but take(1) unsubscribes after the first: b and c stay.
      expectObservable(queue.take(any, 3).pipe(take(1)), sub).toBe(one);
      expectObservable(queue.take(any, 2), sub2).toBe(rest);
      expectSubscriptions(puts.subscriptions).toBe(putSubs);
    });
  });

  it('takes count > 1 items: queued ones at once, then new ones, then completes', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const queue = new PredicatedQueue<string>();
      const puts = cold('  AbB---c--C--D-');
      const putSubs = '    ^-------------';
      const sub = '        ---^';
      const taker = '      ---(AB)--(C|)';
      feed(queue, puts);
      expectObservable(queue.take(isUpper, 3), sub).toBe(taker);
      expectObservable(contents(queue, 14)).toBe('xyzw--v-----u|', {
        x: 'A',
        y: 'Ab',
        z: 'AbB',
        w: 'b',
        v: 'bc',
        u: 'bcD',
      });
      expectSubscriptions(puts.subscriptions).toBe(putSubs);
    });
  });

  it('takes without limit with count Infinity: one taker for the gpu items, one for everything else', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const queue = new PredicatedQueue<string>();
      const puts = cold('  -aB-C-d-|');
      const putSubs = '    ^-------!';
      const gpus = '       --B-C---|';
      const rest = '       -a----d-|';
      feed(queue, puts);
      expectObservable(queue.take(isUpper, Infinity)).toBe(gpus);
      expectObservable(queue.take(any, Infinity)).toBe(rest);
      expectSubscriptions(puts.subscriptions).toBe(putSubs);
    });
  });

  it('bounds the buffer: a put waits while full and is admitted, in order, as takes free space', () => {
    const refused: boolean[] = [];
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const queue = new PredicatedQueue<string>({ maxSize: 2 });
      const puts = cold('  -abcd-------');
      const putSubs = '    ^-----------';
      const sub = '        ------^';
      const taker = '      ------(a|)';
      const sub2 = '       --------^';
      const taker2 = '     --------(bc|)';
      const left = '       exy---z-w---|';
      puts.subscribe((item) => void queue.put(item));
      timer(5).subscribe(() => refused.push(queue.tryPut('e'), queue.full));
      expectObservable(queue.take(any), sub).toBe(taker);
      expectObservable(queue.take(any, 2), sub2).toBe(taker2);
      // c and d wait (full); taking a admits c; taking b, c admits d.
      expectObservable(contents(queue, 13)).toBe(left, { e: '', x: 'a', y: 'ab', z: 'bc', w: 'd' });
      expectSubscriptions(puts.subscriptions).toBe(putSubs);
    });
    // At frame 5, full with two puts waiting: tryPut refuses.
    assert.deepEqual(refused, [false, true]);
  });

  it('hands an item straight to a waiting taker even when the buffer is full', () => {
    const accepted: Record<string, boolean> = {};
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const queue = new PredicatedQueue<string>({ maxSize: 1 });
      const puts = cold('  -a--B--c---');
      const putSubs = '    ^----------';
      const taker = '      ----(B|)';
      const left = '       xy--------|';
      puts.subscribe((item) => (accepted[item] = queue.tryPut(item)));
      expectObservable(queue.take(isUpper)).toBe(taker);
      expectObservable(contents(queue, 11)).toBe(left, { x: '', y: 'a' });
      expectSubscriptions(puts.subscriptions).toBe(putSubs);
    });
    // B was taken although the buffer was full; c was refused, a stayed.
    assert.deepEqual(accepted, { a: true, B: true, c: false });
  });

  it('never emits when no matching item ever arrives (never)', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const queue = new PredicatedQueue<string>();
      const puts = cold('  -a-b-c---');
      const putSubs = '    ^--------';
      const sub = '        ^-------!';
      const none = '       ---------';
      feed(queue, puts);
      expectObservable(queue.take(isUpper), sub).toBe(none);
      expectSubscriptions(puts.subscriptions).toBe(putSubs);
    });
  });

  it('completes takers of a closed queue once nothing queued is left for them (empty)', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const queue = new PredicatedQueue<string>();
      const puts = cold('  -a-B-|');
      const putSubs = '    ^----!';
      const waiting = '    -----|';
      const sub = '        -------^';
      const late = '       -------(B|)';
      const sub2 = '       ---------^';
      const later = '      ---------|';
      feed(queue, puts);
      expectObservable(queue.take((item) => item === 'x')).toBe(waiting);
      // After close, buffered items are still handed out...
      expectObservable(queue.take(isUpper, 2), sub).toBe(late);
      // ...and a taker nothing is left for completes at once.
      expectObservable(queue.take(isUpper), sub2).toBe(later);
      expectSubscriptions(puts.subscriptions).toBe(putSubs);
    });
  });

  it('errors every taker, current and later, when the queue fails', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const queue = new PredicatedQueue<string>();
      const puts = cold('  -a-#', undefined, 'boom');
      const putSubs = '    ^--!';
      const current = '    ---#';
      const sub = '        -----^';
      const later = '      -----#';
      feed(queue, puts);
      expectObservable(queue.take(isUpper)).toBe(current, undefined, 'boom');
      expectObservable(queue.take(any), sub).toBe(later, undefined, 'boom');
      expectSubscriptions(puts.subscriptions).toBe(putSubs);
    });
  });

  it('errors only the taker whose predicate throws; the item goes to the next taker', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const queue = new PredicatedQueue<string>();
      const puts = cold('  --x--y--');
      const putSubs = '    ^-------';
      const thrower = '    --#';
      const other = '      --x--(y|)';
      const boom = new Error('bad predicate');
      feed(queue, puts);
      const throws = (item: string): boolean => {
        if (item === 'x') throw boom;
        return true;
      };
      expectObservable(queue.take(throws)).toBe(thrower, undefined, boom);
      expectObservable(queue.take(any, 2)).toBe(other);
      expectSubscriptions(puts.subscriptions).toBe(putSubs);
    });
  });

  it('is cold: a take that nobody subscribes to takes nothing', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const queue = new PredicatedQueue<string>();
      const puts = cold('  -aB------');
      const putSubs = '    ^--------';
      const sub = '        -----^';
      const late = '       -----(B|)';
      feed(queue, puts);
      queue.take(isUpper); // never subscribed: not a taker
      expectObservable(queue.take(isUpper), sub).toBe(late);
      expectObservable(contents(queue, 9)).toBe('xyz--w--|', { x: '', y: 'a', z: 'aB', w: 'a' });
      expectSubscriptions(puts.subscriptions).toBe(putSubs);
    });
  });

  it('rejects a non-function predicate and a bad count, naming the value', () => {
    const queue = new PredicatedQueue<string>();
    assert.throws(() => queue.take('gpu' as never), {
      name: 'TypeError',
      message: 'PredicatedQueue.take: predicate must be a function, got "gpu"',
    });
    for (const [count, shown] of [
      [0, '0'],
      [1.5, '1.5'],
      [-1, '-1'],
      [Number.NaN, 'NaN'],
    ] as const) {
      assert.throws(() => queue.take(any, count), {
        name: 'TypeError',
        message: `PredicatedQueue.take: count must be a positive integer or Infinity, got ${shown}`,
      });
    }
  });
});
