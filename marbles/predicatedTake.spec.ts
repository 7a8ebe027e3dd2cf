import { describe, it } from 'node:test';
import { EMPTY, NEVER } from 'rxjs';
import { predicatedTake } from '../src/operators/predicatedTake.js';
import { workerTestScheduler as testScheduler } from '../src/testing/index.js';

// Items are letters; upper case stands for a worker tagged 'gpu'.
const isUpper = (item: string): boolean => item === item.toUpperCase();

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
