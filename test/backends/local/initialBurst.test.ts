// Regression: a subscriber that wants only the first worker of
// the local backend's initial burst must not process the whole burst.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { take, tap } from 'rxjs';
import { localDiscovery } from '../../../src/backends/local/index.js';
import type { DiscoveryEvent } from '../../../src/events/types.js';
import { expireWorkers } from '../../../src/operators/expireWorkers.js';
import { filterWorkers } from '../../../src/operators/filterWorkers.js';
import { shareWorkers } from '../../../src/operators/shareWorkers.js';
import { assertClean, makeWorker, strayTestFiles, uniqueNamespace } from './helpers.js';

const WORKERS = 300;
const used: { namespace: string; uids: string[] }[] = [];

after(async () => {
  for (const { namespace, uids } of used) await assertClean(namespace, uids);
  assert.deepEqual(strayTestFiles(), [], 'nothing of these tests left in /dev/shm or the temp directory');
});

describe('local backend: take(1) on the initial burst', () => {
  it(`decodes and filters only the first of ${WORKERS} registered workers`, async () => {
    const namespace = uniqueNamespace('burst');
    const options = { capacity: 512, pollInterval: false } as const;
    const discovery = localDiscovery(namespace, options);
    const workers = Array.from({ length: WORKERS }, () => makeWorker());
    used.push({ namespace, uids: workers.map((w) => w.uid) });
    const publisher = discovery.publisher();
    try {
      for (const worker of workers) await publisher.publish('worker-added', worker);

      // Every worker the backend decodes reaches the filter's predicate once.
      let decoded = 0;
      const counting = (): boolean => {
        decoded += 1;
        return true;
      };

      const first: DiscoveryEvent[] = [];
      localDiscovery(namespace, options)
        .events(counting)
        .pipe(take(1))
        .subscribe((event) => first.push(event));
      assert.equal(first.length, 1, 'the initial burst is synchronous');
      assert.equal(decoded, 1, 'events(filter).pipe(take(1)) stops the burst after the first worker');

      // What the backend emits, counted right at its output, before an operator.
      for (const [name, operator] of [
        ['filterWorkers', filterWorkers(() => true)],
        ['shareWorkers', shareWorkers()],
        ['expireWorkers', expireWorkers(60_000)],
      ] as const) {
        let emitted = 0;
        const got: DiscoveryEvent[] = [];
        localDiscovery(namespace, options)
          .events()
          .pipe(
            tap(() => (emitted += 1)),
            operator,
            take(1),
          )
          .subscribe((event) => got.push(event));
        assert.equal(got.length, 1, name);
        assert.equal(emitted, 1, `events().pipe(${name}(…), take(1)): the backend emitted ${emitted} of ${WORKERS}`);
      }
    } finally {
      await publisher.close();
    }
  });
});
