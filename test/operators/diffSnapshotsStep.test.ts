// The step behind diffSnapshots: a snapshot in, the events from the ledger's state to it out.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { WorkerLedger } from '../../src/events/WorkerLedger.js';
import type { WorkerSnapshot } from '../../src/events/types.js';
import { diffSnapshotsStep } from '../../src/operators/diffSnapshots.js';
import { added, dropped, snapshotOf, testWorker, updated } from '../../src/testing/index.js';

describe('diffSnapshotsStep', () => {
  it('returns drops first, then adds and updates in the new order, and adopts the snapshot', () => {
    const ledger = new WorkerLedger();
    const [a, b, c] = [testWorker(1), testWorker(2), testWorker(3)];
    const b2 = testWorker(2, { version: '2' });
    assert.deepEqual(diffSnapshotsStep(ledger, snapshotOf(a, b)), [added(a), added(b)]);
    const next = snapshotOf(c, b2);
    assert.deepEqual(diffSnapshotsStep(ledger, next), [dropped(a), added(c), updated(b2)]);
    assert.equal(ledger.snapshot(), next, 'adopted without a copy');
    assert.deepEqual(diffSnapshotsStep(ledger, snapshotOf(c, b2)), [], 'the same workers again: nothing');
  });

  it('rejects a value that is not a Map, naming it, with the ledger unchanged', () => {
    const ledger = new WorkerLedger();
    assert.throws(() => diffSnapshotsStep(ledger, [] as unknown as WorkerSnapshot), {
      name: 'TypeError',
      message: 'diffSnapshots: snapshot must be a Map of uid to WorkerInfo, got array []',
    });
    assert.equal(ledger.size, 0);
  });

  it("re-words the ledger's key mismatch with its own prefix, emitting nothing and keeping the state", () => {
    const ledger = new WorkerLedger();
    const a = testWorker(1);
    diffSnapshotsStep(ledger, snapshotOf(a));
    const bad: WorkerSnapshot = new Map([[testWorker(9).uid, testWorker(2)]]);
    assert.throws(() => diffSnapshotsStep(ledger, bad), {
      name: 'TypeError',
      message: `diffSnapshots: snapshot key "${testWorker(9).uid}" does not match its worker's uid "${testWorker(2).uid}"`,
    });
    assert.deepEqual([...ledger.values()], [a]);
  });
});
