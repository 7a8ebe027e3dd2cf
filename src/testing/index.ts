/**
 * `woolrx/testing`: helpers to marble-test your own worker pipelines.
 * Renderer-safe, like the core.
 *
 * @example
 * import { workerTestScheduler, testWorker, added, dropped } from 'woolrx/testing';
 * import { filterWorkers } from 'woolrx';
 *
 * const scheduler = workerTestScheduler();
 * scheduler.run(({ cold, expectObservable }) => {
 *   const gpu = testWorker(1, { tags: ['gpu'] });
 *   const cpu = testWorker(2);
 *   const events = cold('-a-b-c|', { a: added(gpu), b: added(cpu), c: dropped(gpu) });
 *   expectObservable(events.pipe(filterWorkers((w) => w.tags.includes('gpu'))))
 *     .toBe('-a---c|', { a: added(gpu), c: dropped(gpu) });
 * });
 * @packageDocumentation
 */
export { workerTestScheduler } from './workerTestScheduler.js';
export { MarbleMismatchError } from './MarbleMismatchError.js';
export { testWorker } from './testWorker.js';
export { added } from './added.js';
export { updated } from './updated.js';
export { dropped } from './dropped.js';
export { snapshotOf } from './snapshotOf.js';
export { deepEqual } from './deepEqual.js';
export { formatFrames } from './formatFrames.js';
