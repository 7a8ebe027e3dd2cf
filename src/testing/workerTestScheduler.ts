import { TestScheduler } from 'rxjs/testing';
import { deepEqual } from './deepEqual.js';
import { formatFrames } from './formatFrames.js';
import { MarbleMismatchError } from './MarbleMismatchError.js';

/**
 * A `TestScheduler` ready for worker pipelines: it compares frames
 * structurally ({@link deepEqual}: maps, sets, frozen workers) and, on a
 * mismatch, throws a {@link MarbleMismatchError} listing expected and actual frames with short
 * worker descriptions. Use it with `run()` like any TestScheduler.
 *
 * @example
 * const scheduler = workerTestScheduler();
 * scheduler.run(({ cold, expectObservable }) => {
 *   const a = testWorker(1);
 *   const source = cold('-a-|', { a: snapshotOf(a) });
 *   expectObservable(source.pipe(diffSnapshots())).toBe('-a-|', { a: added(a) });
 * });
 *
 * @param assertEqual Optional custom assertion (e.g. `assert.deepStrictEqual`);
 * by default a structural comparison with a readable failure message.
 * @returns A new TestScheduler.
 */
export function workerTestScheduler(assertEqual?: (actual: unknown, expected: unknown) => void): TestScheduler {
  return new TestScheduler(
    assertEqual ??
      ((actual, expected) => {
        if (!deepEqual(actual, expected)) {
          const a = Array.isArray(actual) ? formatFrames(actual) : String(actual);
          const e = Array.isArray(expected) ? formatFrames(expected) : String(expected);
          throw new MarbleMismatchError(e, a);
        }
      }),
  );
}
