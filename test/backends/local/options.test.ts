// The local backend's option bounds, decided and documented
// (docs/backends/local.md): lockTimeout is whole milliseconds or Infinity
// (wool's "wait without bound"); blockSize is at least 16 bytes.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { localDiscovery } from '../../../src/backends/local/index.js';
import { assertClean, Child, killChildren, makeWorker, Recorder, uniqueNamespace, waitFor } from './helpers.js';

const used: { namespace: string; uids: string[] }[] = [];

after(async () => {
  await killChildren();
  for (const { namespace, uids } of used) await assertClean(namespace, uids);
});

const rejects = (options: object, message: RegExp): void =>
  assert.throws(
    () => localDiscovery('ok', options),
    (error: unknown) => error instanceof TypeError && message.test(error.message),
  );

describe('local backend options', () => {
  it('lockTimeout: whole milliseconds or Infinity; a fraction, NaN or -Infinity is a TypeError naming it', () => {
    const expected = 'an integer from 0 to 2147483647, or Infinity \\(wait without bound\\)';
    rejects({ lockTimeout: 1.5 }, new RegExp(`^localDiscovery: option lockTimeout must be ${expected}, got 1\\.5$`));
    rejects(
      { lockTimeout: Number.NaN },
      new RegExp(`^localDiscovery: option lockTimeout must be ${expected}, got NaN$`),
    );
    rejects(
      { lockTimeout: -Infinity },
      new RegExp(`^localDiscovery: option lockTimeout must be ${expected}, got -Infinity$`),
    );
    rejects(
      { lockTimeout: 2 ** 31 },
      new RegExp(`^localDiscovery: option lockTimeout must be ${expected}, got 2147483648$`),
    );
    for (const lockTimeout of [0, 1, 2 ** 31 - 1, Infinity])
      assert.equal(localDiscovery('ok', { lockTimeout }).namespace, 'ok');
  });

  it('blockSize: from 16 bytes (documented lower bound) to 16 MiB', () => {
    rejects({ blockSize: 15 }, /^localDiscovery: option blockSize must be an integer from 16 to 16777216, got 15$/);
    rejects(
      { blockSize: 2 ** 24 + 1 },
      /^localDiscovery: option blockSize must be an integer from 16 to 16777216, got 16777217$/,
    );
    assert.equal(localDiscovery('ok', { blockSize: 16 }).namespace, 'ok');
    assert.equal(localDiscovery('ok', { blockSize: 2 ** 24 }).namespace, 'ok');
  });

  it('lockTimeout: Infinity waits for a lock held by another process, however long, and then publishes', async () => {
    const namespace = uniqueNamespace('infinite');
    const worker = makeWorker();
    used.push({ namespace, uids: [worker.uid] });
    const holder = new Child('lockHolder.ts', [namespace]);
    await waitFor(() => holder.messages.length > 0, 'lock held', 20_000);
    const discovery = localDiscovery(namespace, { pollInterval: false, lockTimeout: Infinity });
    const recorder = new Recorder(discovery.events());
    const publisher = discovery.publisher();
    let settled: 'resolved' | 'rejected' | undefined;
    const pending = publisher.publish('worker-added', worker).then(
      () => (settled = 'resolved'),
      (error: unknown) => {
        settled = 'rejected';
        throw error;
      },
    );
    await sleep(500);
    assert.equal(settled, undefined, 'still waiting while the lock is held');
    await holder.call({ op: 'release' });
    await pending;
    await waitFor(() => recorder.workers.has(worker.uid), 'the worker published once the lock was free');
    await publisher.close();
    recorder.stop();
    assert.equal(await holder.exited, 0);
  });
});
