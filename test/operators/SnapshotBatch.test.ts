// The state behind toSnapshots: record events, flush one snapshot per batch.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { DiscoveryEvent } from '../../src/events/types.js';
import { SnapshotBatch } from '../../src/operators/SnapshotBatch.js';
import { added, dropped, snapshotOf, testWorker, updated } from '../../src/testing/index.js';

describe('SnapshotBatch', () => {
  it('flushes the current workers after a batch that changed them, a fresh Map each time', () => {
    const batch = new SnapshotBatch();
    const [a, b] = [testWorker(1), testWorker(2)];
    assert.equal(batch.record(added(a)), true);
    assert.equal(batch.record(added(b)), true);
    const first = batch.flush();
    assert.deepEqual(first, snapshotOf(a, b));
    assert.equal(batch.record(dropped(a)), true);
    const second = batch.flush();
    assert.deepEqual(second, snapshotOf(b));
    assert.deepEqual(first, snapshotOf(a, b), 'an emitted snapshot is never mutated');
    assert.notEqual(first, second);
  });

  it('reports events that change nothing, and flushes nothing for a batch that nets to no change', () => {
    const batch = new SnapshotBatch();
    const a = testWorker(1);
    batch.record(added(a));
    batch.flush();
    assert.equal(batch.record(updated(testWorker(1))), false, 'identical metadata');
    assert.equal(batch.record(dropped(testWorker(5))), false, 'an unknown uid');
    assert.equal(batch.flush(), undefined);
    assert.equal(batch.record(dropped(a)), true);
    assert.equal(batch.record(added(a)), true);
    assert.equal(batch.flush(), undefined, 'dropped then added again, unchanged');
    assert.equal(batch.record(updated(testWorker(1, { version: '2' }))), true);
    assert.equal(batch.record(updated(a)), true);
    assert.equal(batch.flush(), undefined, 'changed, then changed back');
  });

  it('throws a TypeError naming a malformed event', () => {
    const batch = new SnapshotBatch();
    assert.throws(() => batch.record({ type: 'worker-added', worker: {} } as unknown as DiscoveryEvent), {
      name: 'TypeError',
      message: 'toSnapshots: event has no worker uid: {"type":"worker-added","worker":{}}',
    });
    assert.throws(() => batch.record({ type: 'nope', worker: testWorker(1) } as unknown as DiscoveryEvent), {
      name: 'TypeError',
      message: 'toSnapshots: unknown event type "nope"',
    });
  });
});
