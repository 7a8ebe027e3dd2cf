import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { WorkerLedger } from '../../src/events/WorkerLedger.js';
import type { DiscoveryEvent } from '../../src/events/types.js';
import type { WorkerInfo } from '../../src/model/types.js';
import { testWorker } from '../../src/testing/testWorker.js';

const w1 = testWorker(1);
const w1b = testWorker(1, { tags: ['gpu'] });
const w2 = testWorker(2);
const w3 = testWorker(3);

function brief(events: readonly (DiscoveryEvent | undefined)[]): string[] {
  return events.map((event) => (event === undefined ? '-' : `${event.type.slice(7)} ${event.worker.address}`));
}
function snapshot(...workers: WorkerInfo[]): Map<string, WorkerInfo> {
  return new Map(workers.map((worker) => [worker.uid, worker]));
}

describe('WorkerLedger', () => {
  it('put: added for an unknown uid, updated only when the metadata changed, nothing when it did not', () => {
    const ledger = new WorkerLedger();
    assert.deepEqual(brief([ledger.put(w1), ledger.put(w1), ledger.put(testWorker(1)), ledger.put(w1b)]), [
      'added 127.0.0.1:50001',
      '-',
      '-',
      'updated 127.0.0.1:50001',
    ]);
    assert.equal(ledger.get(w1.uid), w1b);
    assert.equal(ledger.size, 1);
  });

  it('drop: carries the last metadata reported; an unknown uid is nothing', () => {
    const ledger = new WorkerLedger();
    ledger.put(w1);
    ledger.put(w1b);
    const dropped = ledger.drop(w1.uid);
    assert.equal(dropped?.type, 'worker-dropped');
    assert.equal(dropped?.worker, w1b);
    assert.equal(ledger.drop(w1.uid), undefined);
    assert.equal(ledger.has(w1.uid), false);
  });

  it('apply: an update of an unknown uid is an add, a drop event drops by uid with the reported metadata', () => {
    const ledger = new WorkerLedger();
    assert.equal(ledger.apply({ type: 'worker-updated', worker: w1 })?.type, 'worker-added');
    assert.equal(ledger.apply({ type: 'worker-dropped', worker: w1b })?.worker, w1);
  });

  it('reconcile: drops first in the old order, then adds and updates in the new order', () => {
    const ledger = new WorkerLedger();
    assert.deepEqual(brief(ledger.reconcile(snapshot(w1, w2))), ['added 127.0.0.1:50001', 'added 127.0.0.1:50002']);
    assert.deepEqual(brief(ledger.reconcile(snapshot(w3, w2))), ['dropped 127.0.0.1:50001', 'added 127.0.0.1:50003']);
    assert.deepEqual(brief(ledger.reconcile(snapshot(w3, testWorker(2)))), []);
    const moved = testWorker(2, { address: '127.0.0.1:1' });
    assert.deepEqual(brief(ledger.reconcile(snapshot(moved))), ['dropped 127.0.0.1:50003', 'updated 127.0.0.1:1']);
  });

  it('reconcile: a key that is not its worker uid throws a TypeError naming both, and the state is unchanged', () => {
    const ledger = new WorkerLedger();
    ledger.reconcile(snapshot(w1));
    const bad = new Map([
      [w1.uid, w1],
      ['x', w2],
    ]);
    assert.throws(
      () => ledger.reconcile(bad),
      (error: unknown) => {
        assert.ok(error instanceof TypeError);
        assert.match(error.message, /"x".*3c6ef362-0000-4000-8000-000000000002/);
        return true;
      },
    );
    assert.deepEqual([...ledger.values()], [w1]);
    assert.deepEqual(brief(ledger.reconcile(snapshot(w1))), []);
  });

  it('forEach: visits each known worker once, its latest version, in first-added order, with the worker alone', () => {
    const ledger = new WorkerLedger();
    ledger.put(w2);
    ledger.put(w1);
    ledger.put(w3);
    ledger.put(w1b);
    ledger.drop(w3.uid);
    const seen: unknown[][] = [];
    ledger.forEach((...args: unknown[]) => seen.push(args));
    assert.deepEqual(seen, [[w2], [w1b]]);
    assert.deepEqual(
      seen.map(([worker]) => worker),
      [...ledger.values()],
    );
  });

  it('snapshot: never mutated by later writes (copy on write), and adopted snapshots are not mutated either', () => {
    const ledger = new WorkerLedger();
    ledger.put(w1);
    const first = ledger.snapshot();
    ledger.put(w2);
    ledger.drop(w1.uid);
    assert.deepEqual([...first.keys()], [w1.uid]);
    const adopted = snapshot(w3);
    ledger.reconcile(adopted);
    ledger.put(w1);
    assert.deepEqual([...adopted.keys()], [w3.uid]);
    assert.deepEqual([...ledger.snapshot().keys()], [w3.uid, w1.uid]);
  });

  it('clear: a drop per known worker, in the order they were added', () => {
    const ledger = new WorkerLedger();
    ledger.put(w2);
    ledger.put(w1);
    assert.deepEqual(brief(ledger.clear()), ['dropped 127.0.0.1:50002', 'dropped 127.0.0.1:50001']);
    assert.equal(ledger.size, 0);
  });
});
