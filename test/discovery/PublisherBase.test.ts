import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PublisherBase } from '../../src/discovery/PublisherBase.js';
import { PublisherClosedError } from '../../src/errors/PublisherClosedError.js';
import type { DiscoveryEventType } from '../../src/events/types.js';
import type { WorkerInfo } from '../../src/model/types.js';
import { testWorker } from '../../src/testing/testWorker.js';

/** Records what the base asks of a backend; each apply waits for `gate` when set. */
class Recorder extends PublisherBase {
  readonly log: string[] = [];
  gate: Promise<void> | undefined;
  failOn: string | undefined;
  protected override async apply(type: DiscoveryEventType, worker: WorkerInfo): Promise<void> {
    this.log.push(`start ${type} ${worker.address}`);
    if (this.gate !== undefined) await this.gate;
    if (worker.address === this.failOn) throw new Error(`cannot apply ${worker.address}`);
    this.log.push(`end ${type} ${worker.address}`);
  }
  protected override shutdown(): void {
    this.log.push('shutdown');
  }
}

/** A backend whose apply is synchronous. */
class Immediate extends PublisherBase {
  readonly applied: string[] = [];
  protected override apply(type: DiscoveryEventType, worker: WorkerInfo): void {
    if (worker.address === '127.0.0.1:1') throw new Error('sync failure');
    this.applied.push(`${type} ${worker.address}`);
  }
  protected override shutdown(): void {
    this.applied.push('shutdown');
  }
}

describe('PublisherBase', () => {
  it('runs operations one at a time in call order, close() after every pending one', async () => {
    const publisher = new Recorder('ns');
    let open!: () => void;
    publisher.gate = new Promise((resolve) => (open = resolve));
    const a = publisher.publish('worker-added', testWorker(1));
    const b = publisher.publish('worker-updated', testWorker(1, { address: '127.0.0.1:2' }));
    const closing = publisher.close();
    assert.equal(publisher.closed, true);
    assert.deepEqual(publisher.log, ['start worker-added 127.0.0.1:50001']);
    open();
    await Promise.all([a, b, closing]);
    assert.deepEqual(publisher.log, [
      'start worker-added 127.0.0.1:50001',
      'end worker-added 127.0.0.1:50001',
      'start worker-updated 127.0.0.1:2',
      'end worker-updated 127.0.0.1:2',
      'shutdown',
    ]);
  });

  it('a failing operation rejects its own promise only; the next one still runs', async () => {
    const publisher = new Recorder('ns');
    publisher.failOn = '127.0.0.1:2';
    const bad = publisher.publish('worker-added', testWorker(1, { address: '127.0.0.1:2' }));
    const good = publisher.publish('worker-added', testWorker(2));
    await assert.rejects(bad, /cannot apply 127.0.0.1:2/);
    await good;
    assert.deepEqual(publisher.log.at(-1), 'end worker-added 127.0.0.1:50002');
  });

  it('close() is idempotent: one shutdown, the same promise; later publishes reject with PublisherClosedError', async () => {
    const publisher = new Recorder('ns');
    const first = publisher.close();
    assert.equal(publisher.close(), first);
    assert.equal(publisher[Symbol.asyncDispose](), first);
    await first;
    assert.deepEqual(publisher.log, ['shutdown']);
    await assert.rejects(publisher.publish('worker-added', testWorker(1)), PublisherClosedError);
  });

  it('bad arguments reject with a TypeError and reach no backend', async () => {
    const publisher = new Recorder('ns');
    await assert.rejects(publisher.publish('worker-gone' as never, testWorker(1)), /invalid event type "worker-gone"/);
    await assert.rejects(publisher.publish('worker-added', { uid: 'nope' } as never), /Invalid worker uid: "nope"/);
    assert.deepEqual(publisher.log, []);
  });

  it('with nothing pending, a synchronous backend has applied the change before publish() returns; a throw becomes a rejection', async () => {
    const publisher = new Immediate('ns');
    const done = publisher.publish('worker-added', testWorker(1));
    assert.deepEqual(publisher.applied, ['worker-added 127.0.0.1:50001']);
    await done;
    await assert.rejects(publisher.publish('worker-added', testWorker(1, { address: '127.0.0.1:1' })), /sync failure/);
    await publisher.close();
    assert.deepEqual(publisher.applied, ['worker-added 127.0.0.1:50001', 'shutdown']);
  });
});
