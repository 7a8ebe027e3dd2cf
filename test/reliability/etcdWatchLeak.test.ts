// Unsubscribing must cancel the watch on the etcd server, not
// only locally — tried where a leak would hide: unsubscribing exactly while
// the watch is being created (around the initial read's end), and while the
// client reconnects after the member restarted (or while it is still down).
// The server's own gauges (its /metrics: watchers and watch streams) must
// come back to where they started. leaks.test.ts covers plain cycles.
import assert from 'node:assert/strict';
import { serverWatchers } from './serverWatchers.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { etcdDiscovery } from '../../src/backends/etcd/etcdDiscovery.js';
import { startEtcd, type EtcdCluster } from '../backends/etcd/etcdHarness.js';
import { makeWorker, uniqueNamespace } from '../backends/etcd/helpers.js';

describe('etcd: an unsubscribe cancels the watch on the server', { timeout: 120_000 }, () => {
  let etcd: EtcdCluster;
  before(async () => {
    etcd = await startEtcd();
  });
  after(async () => {
    await etcd.dispose();
  });

  /** Waits (up to 10 s) for the server's gauges to read `expected`; fails with the last reading. */
  const settled = async (endpoint: string, expected: number, what: string): Promise<void> => {
    let last = -1;
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline) {
      last = await serverWatchers(endpoint).catch(() => -1);
      if (last === expected) return;
      await sleep(100);
    }
    assert.equal(last, expected, `${what}: server-side watchers and watch streams`);
  };

  it('unsubscribing while the watch is being created: 400 times at delays spread over the initial read, 50 right after the initial burst', async () => {
    const endpoint = etcd.endpoints[0] as string;
    const namespace = uniqueNamespace('leakcreate');
    const discovery = etcdDiscovery(namespace, { endpoints: endpoint, ttl: 10 });
    const publisher = discovery.publisher();
    for (let n = 0; n < 5; n++) await publisher.publish('worker-added', makeWorker());
    // A subscription kept open throughout keeps the client (the connection) alive: only watches come and go.
    const keep = discovery.events().subscribe();
    try {
      await sleep(300);
      const baseline = await serverWatchers(endpoint);
      // How long until the watch is being created: the initial read's end.
      const began = performance.now();
      await new Promise<void>((resolve) => {
        const probe = discovery.snapshots().subscribe(() => {
          resolve();
          queueMicrotask(() => probe.unsubscribe());
        });
      });
      const read = Math.max(1, performance.now() - began);
      for (let i = 0; i < 400; i++) {
        const subscription = discovery.events().subscribe();
        // Spread over [0, 3 × read]: before, during and after the create request.
        const delay = ((i % 40) / 40) * 3 * read;
        if (delay < 0.5) await Promise.resolve();
        else await sleep(delay);
        subscription.unsubscribe();
      }
      // Right after the initial burst (the watch is being opened then), from the subscriber's own callback.
      for (let i = 0; i < 50; i++) {
        await new Promise<void>((resolve) => {
          let done = false;
          const subscription = discovery.events().subscribe(() => {
            if (done) return;
            done = true;
            queueMicrotask(() => {
              subscription.unsubscribe();
              resolve();
            });
          });
        });
      }
      await settled(endpoint, baseline, 'after 450 subscriptions cut while their watch was being created');
    } finally {
      keep.unsubscribe();
      await publisher.close();
    }
  });

  it('unsubscribing while the client reconnects after a member restart, or while it is down', async () => {
    const endpoint = etcd.endpoints[0] as string;
    const namespace = uniqueNamespace('leakrestart');
    const discovery = etcdDiscovery(namespace, { endpoints: endpoint, ttl: 10 });
    const keep = discovery.events().subscribe();
    await sleep(300);
    const baseline = await serverWatchers(endpoint);
    try {
      for (let round = 0; round < 3; round++) {
        const subscriptions = Array.from({ length: 20 }, () => discovery.events().subscribe());
        await sleep(300);
        assert.ok((await serverWatchers(endpoint)) > baseline, 'the subscriptions are watching');
        await etcd.members[0]!.stop('SIGKILL');
        // While it is down: a quarter unsubscribe (their retry timers pending).
        for (const subscription of subscriptions.splice(0, 5)) subscription.unsubscribe();
        await sleep(200);
        await etcd.members[0]!.start();
        // While reconnecting: the rest, staggered over the reconnect.
        for (const [i, subscription] of subscriptions.entries()) {
          subscription.unsubscribe();
          await sleep(i * 10);
        }
        // Only the kept subscription watches again.
        await settled(endpoint, baseline, `round ${round}: after unsubscribing during the reconnect`);
      }
    } finally {
      keep.unsubscribe();
    }
  });
});
