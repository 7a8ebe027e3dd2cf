/**
 * lanDiscovery's synced signal over real mDNS, across two network
 * namespaces: `snapshots()` emits nothing until the first query window
 * (`syncWindow`) has passed, then the workers that answered that query (all
 * of them), or an empty map for an empty pool. This file only orchestrates.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { workerInfo } from '../../../src/model/workerInfo.js';
import { agentsOnTwoHosts } from './agent.js';

const NAMESPACE = 'synced';
const COUNT = 50;

describe('lanDiscovery: synced after the first query window', { timeout: 60_000 }, () => {
  const hosts = agentsOnTwoHosts('synced', 5);

  it('an empty pool: one empty snapshot, once the window has passed', async () => {
    const { subscriber } = hosts;
    subscriber.send({ op: 'snapshots', id: 'empty', namespace: `${NAMESPACE}-empty`, options: { syncWindow: 600 } });
    const first = await subscriber.waitFor((r) => r.ev === 'snapshot' && r.id === 'empty', 'first snapshot');
    assert.deepEqual(first.uids, []);
    assert.ok((first.at ?? 0) >= 600, `not before the window: ${first.at} ms`);
    subscriber.send({ op: 'unsubscribe', id: 'empty' });
  });

  it(`${COUNT} registered workers: the first snapshot holds every one of them, and no snapshot comes earlier`, async () => {
    const { publisher, subscriber } = hosts;
    publisher.send({ op: 'publisher', id: 'p', namespace: NAMESPACE, options: { probe: false } });
    await publisher.waitFor((r) => r.ev === 'publisher', 'publisher');
    const workers = Array.from({ length: COUNT }, (_, i) =>
      workerInfo({ uid: randomUUID(), address: `10.213.5.1:${9000 + i}`, pid: 40, version: '1' }),
    );
    await publisher.ok({ op: 'publishMany', id: 'p', type: 'worker-added', workers });
    for (const [id, syncWindow] of [
      ['fast', 300],
      ['default', undefined],
    ] as const) {
      subscriber.send({
        op: 'snapshots',
        id,
        namespace: NAMESPACE,
        options: syncWindow === undefined ? {} : { syncWindow },
      });
      const first = await subscriber.waitFor((r) => r.ev === 'snapshot' && r.id === id, `first snapshot (${id})`);
      assert.deepEqual(
        [...(first.uids ?? [])].sort(),
        workers.map((w) => w.uid).sort(),
        `every worker in the first snapshot (${id})`,
      );
      assert.ok((first.at ?? 0) >= (syncWindow ?? 1000), `not before the window (${id}): ${first.at} ms`);
      subscriber.send({ op: 'unsubscribe', id });
    }
    await publisher.ok({ op: 'close', id: 'p' });
  });
});
