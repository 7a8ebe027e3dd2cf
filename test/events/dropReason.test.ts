// The reason of a worker-dropped event: decided once (DropReason), plain
// data, validated, kept by the ledger and passed on by the operators.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { from, lastValueFrom, take, toArray } from 'rxjs';
import { discoveryEvent } from '../../src/events/discoveryEvent.js';
import { DROP_REASONS, isDropReason } from '../../src/events/isDropReason.js';
import { WorkerLedger } from '../../src/events/WorkerLedger.js';
import type { DiscoveryEvent } from '../../src/events/types.js';
import { sameWorker } from '../../src/model/sameWorker.js';
import { expireWorkers } from '../../src/operators/expireWorkers.js';
import { filterWorkers } from '../../src/operators/filterWorkers.js';
import { shareWorkers } from '../../src/operators/shareWorkers.js';
import { added, dropped, testWorker } from '../../src/testing/index.js';

describe('DropReason', () => {
  it('is one of four words, on worker-dropped only; frozen, structured-clone and JSON safe', () => {
    assert.deepEqual(DROP_REASONS, ['withdrawn', 'process-gone', 'expired', 'malformed']);
    assert.ok(DROP_REASONS.every(isDropReason));
    assert.ok(!isDropReason('gone') && !isDropReason(undefined));
    const w = testWorker(1);
    const event = discoveryEvent('worker-dropped', w, 'process-gone');
    assert.deepEqual(event, { type: 'worker-dropped', worker: w, reason: 'process-gone' });
    assert.ok(Object.isFrozen(event));
    assert.deepEqual(structuredClone(event), event);
    assert.equal((JSON.parse(JSON.stringify(event)) as { reason: string }).reason, 'process-gone');
    assert.ok(!('reason' in discoveryEvent('worker-dropped', w)), 'no key at all when not known');
    assert.throws(
      () => discoveryEvent('worker-dropped', w, 'vanished' as never),
      /^TypeError: Invalid drop reason: "vanished" \(expected withdrawn, process-gone, expired, malformed\)$/,
    );
    assert.throws(
      () => discoveryEvent('worker-added', w, 'expired'),
      /^TypeError: Invalid drop reason: "expired" on a worker-added event/,
    );
  });

  it('the ledger puts it on the drop it decides, and apply keeps it', () => {
    const w = testWorker(1);
    const ledger = new WorkerLedger();
    ledger.put(w);
    assert.equal(ledger.drop(w.uid, 'expired')?.reason, 'expired');
    assert.equal(ledger.drop(w.uid, 'expired'), undefined, 'an unknown uid: nothing');
    ledger.put(w);
    assert.equal(ledger.apply(discoveryEvent('worker-dropped', w, 'withdrawn'))?.reason, 'withdrawn');
    assert.ok(
      sameWorker(dropped(w).worker, discoveryEvent('worker-dropped', w, 'withdrawn').worker),
      'the worker is the same',
    );
  });

  it('operators pass it on: filterWorkers, expireWorkers, shareWorkers', async () => {
    const w = testWorker(1, { tags: ['gpu'] });
    const source: DiscoveryEvent[] = [added(w), discoveryEvent('worker-dropped', w, 'process-gone')];
    const run = (events: DiscoveryEvent[]) => events.map((event) => event.reason);
    assert.deepEqual(
      run(
        await lastValueFrom(
          from(source).pipe(
            filterWorkers((x) => x.tags.includes('gpu')),
            toArray(),
          ),
        ),
      ),
      [undefined, 'process-gone'],
    );
    assert.deepEqual(run(await lastValueFrom(from(source).pipe(expireWorkers(60_000), take(2), toArray()))), [
      undefined,
      'process-gone',
    ]);
    assert.deepEqual(run(await lastValueFrom(from(source).pipe(shareWorkers(), take(2), toArray()))), [
      undefined,
      'process-gone',
    ]);
    // A drop made from an update out of the filter is the filter's, not the backend's: no reason.
    const moved: DiscoveryEvent[] = [added(w), discoveryEvent('worker-updated', testWorker(1, { tags: [] }))];
    const filtered = await lastValueFrom(
      from(moved).pipe(
        filterWorkers((x) => x.tags.includes('gpu')),
        toArray(),
      ),
    );
    assert.deepEqual(
      filtered.map((event) => [event.type, event.reason]),
      [
        ['worker-added', undefined],
        ['worker-dropped', undefined],
      ],
    );
  });
});
