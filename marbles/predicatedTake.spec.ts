import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { distinctUntilChanged, EMPTY, map, NEVER, type Observable, take, timer } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { PredicatedQueue } from '../src/operators/PredicatedQueue.js';
import { predicatedTake } from '../src/operators/predicatedTake.js';

// Items are letters; upper case stands for a worker tagged 'gpu'.
const isUpper = (item: string): boolean => item === item.toUpperCase();
const any = (): boolean => true;

const testScheduler = (): TestScheduler =>
  new TestScheduler((actual, expected) => assert.deepStrictEqual(actual, expected));

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

describe('predicatedTake on a PredicatedQueue (marbles)', () => {
  it('gives an item to one taker only: two takers, one item', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const queue = new PredicatedQueue<string>();
      const puts = cold('  ---G--H--|');
      const putSubs = '    ^--------!';
      const first = '      ---(G|)';
      const second = '     ------(H|)';
      feed(queue, puts);
      expectObservable(queue.pipe(predicatedTake(isUpper))).toBe(first);
      expectObservable(queue.pipe(predicatedTake(isUpper))).toBe(second);
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
      expectObservable(queue.pipe(predicatedTake(isUpper)), gpuSub).toBe(gpuTaker);
      expectObservable(queue.pipe(predicatedTake(any, 2)), anySub).toBe(anyTaker);
      // Accepts everything too, but subscribed after the 'any' taker: gets nothing.
      expectObservable(queue.pipe(predicatedTake(any)), lateSub).toBe(lateTaker);
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
      expectObservable(queue.pipe(predicatedTake(any, 2)), sub).toBe(taker);
      expectObservable(queue.pipe(predicatedTake(any)), sub2).toBe(taker2);
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
      expectObservable(queue.pipe(predicatedTake(isUpper))).toBe(gpu);
      expectObservable(queue.pipe(predicatedTake(any)), sub).toBe(later);
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
      expectObservable(queue.pipe(predicatedTake(isUpper)), sub).toBe(gone);
      expectObservable(queue.pipe(predicatedTake(isUpper)), sub2).toBe(next);
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
      expectObservable(queue.pipe(predicatedTake(any, 3), take(1)), sub).toBe(one);
      expectObservable(queue.pipe(predicatedTake(any, 2)), sub2).toBe(rest);
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
      expectObservable(queue.pipe(predicatedTake(isUpper, 3)), sub).toBe(taker);
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

  it('takes without limit with count Infinity, and subscribing to the queue itself takes everything', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const queue = new PredicatedQueue<string>();
      const puts = cold('  -aB-C-d-|');
      const putSubs = '    ^-------!';
      const gpus = '       --B-C---|';
      const rest = '       -a----d-|';
      feed(queue, puts);
      expectObservable(queue.pipe(predicatedTake(isUpper, Infinity))).toBe(gpus);
      expectObservable(queue).toBe(rest);
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
      expectObservable(queue.pipe(predicatedTake(any)), sub).toBe(taker);
      expectObservable(queue.pipe(predicatedTake(any, 2)), sub2).toBe(taker2);
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
      expectObservable(queue.pipe(predicatedTake(isUpper))).toBe(taker);
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
      expectObservable(queue.pipe(predicatedTake(isUpper)), sub).toBe(none);
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
      expectObservable(queue.pipe(predicatedTake((item) => item === 'x'))).toBe(waiting);
      // After close, buffered items are still handed out...
      expectObservable(queue.pipe(predicatedTake(isUpper, 2)), sub).toBe(late);
      // ...and a taker nothing is left for completes at once.
      expectObservable(queue.pipe(predicatedTake(isUpper)), sub2).toBe(later);
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
      expectObservable(queue.pipe(predicatedTake(isUpper))).toBe(current, undefined, 'boom');
      expectObservable(queue.pipe(predicatedTake(any)), sub).toBe(later, undefined, 'boom');
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
      expectObservable(queue.pipe(predicatedTake(throws))).toBe(thrower, undefined, boom);
      expectObservable(queue.pipe(predicatedTake(any, 2))).toBe(other);
      expectSubscriptions(puts.subscriptions).toBe(putSubs);
    });
  });
});

describe('predicatedTake on a plain Observable (marbles): filter, then take', () => {
  it('emits the first count matching items and unsubscribes from the source', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('-a-B-c-D-E-|');
      const subs = '       ^------!';
      const expected = '   ---B---(D|)';
      expectObservable(source.pipe(predicatedTake(isUpper, 2))).toBe(expected);
      expectSubscriptions(source.subscriptions).toBe(subs);
    });
  });

  it('is not exclusive: each subscriber gets its own matching items', () => {
    testScheduler().run(({ hot, expectObservable, expectSubscriptions }) => {
      const source = hot(' -a-B-|');
      const subs = ['      ^--!', '^--!'];
      const expected = '   ---(B|)';
      expectObservable(source.pipe(predicatedTake(isUpper))).toBe(expected);
      expectObservable(source.pipe(predicatedTake(isUpper))).toBe(expected);
      expectSubscriptions(source.subscriptions).toBe(subs);
    });
  });

  it('passes a source error through', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('-a-B-#');
      const subs = '       ^----!';
      const expected = '   ---B-#';
      expectObservable(source.pipe(predicatedTake(isUpper, 2))).toBe(expected);
      expectSubscriptions(source.subscriptions).toBe(subs);
    });
  });

  it('errors when the predicate throws, and unsubscribes from the source', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('-a-b-c-|');
      const subs = '       ^--!';
      const expected = '   ---#';
      const boom = new Error('bad predicate');
      const throws = (item: string): boolean => {
        if (item === 'b') throw boom;
        return false;
      };
      expectObservable(source.pipe(predicatedTake(throws))).toBe(expected, undefined, boom);
      expectSubscriptions(source.subscriptions).toBe(subs);
    });
  });

  it('stops on early unsubscribe', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('-a-B-C-|');
      const sub = '        ^--!';
      const subs = '       ^--!';
      const expected = '   ---';
      expectObservable(source.pipe(predicatedTake(isUpper)), sub).toBe(expected);
      expectSubscriptions(source.subscriptions).toBe(subs);
    });
  });

  it('completes on an empty source and never emits on a never source', () => {
    testScheduler().run(({ expectObservable }) => {
      expectObservable(EMPTY.pipe(predicatedTake(isUpper))).toBe('|');
      expectObservable(NEVER.pipe(predicatedTake(isUpper)), '^---!').toBe('-----');
    });
  });
});
