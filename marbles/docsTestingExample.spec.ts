// The example of docs/testing.md, verbatim but for the imports, so the
// documentation cannot drift from what works.
import { describe, it } from 'node:test';
import { filterWorkers } from '../src/index.js';
import { added, dropped, testWorker, updated, workerTestScheduler } from '../src/testing/index.js';

describe('my GPU pipeline', () => {
  it('sees GPU workers come and go', () => {
    workerTestScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const gpu = testWorker(1, { tags: ['gpu'] });
      const demoted = testWorker(1); // same uid, tag removed
      const source = cold('-a--b--|', { a: added(gpu), b: updated(demoted) });
      const sub =          '^------!';
      const expected =     '-a--b--|';

      expectObservable(source.pipe(filterWorkers((w) => w.tags.includes('gpu')))).toBe(expected, {
        a: added(gpu),
        b: dropped(gpu), // leaves the filter carrying its last passing metadata
      });
      expectSubscriptions(source.subscriptions).toBe(sub);
    });
  });
});
