// A 3-member etcd cluster on loopback: a member stopped while workers change
// (streams go on, nothing lost or repeated), then the whole cluster stopped
// and restarted (subscribers reconnect and converge to the truth).
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, afterEach, before, describe, it } from 'node:test';
import { ConnectionPool } from 'etcd3/lib/connection-pool.js';
import { etcdDiscovery } from '../../../src/backends/etcd/etcdDiscovery.js';
import type { DiscoveryEvent } from '../../../src/events/types.js';
import type { WorkerInfo } from '../../../src/model/types.js';
import { workerInfo } from '../../../src/model/workerInfo.js';
import type { WorkerPublisher } from '../../../src/discovery/types.js';
import { startEtcdCluster, type EtcdCluster } from './etcdHarness.js';
import { makeWorker, Recorder, uniqueNamespace, waitFor } from './helpers.js';

/** Publishes, retrying while the cluster elects a leader (a retried change is idempotent). */
async function publishSurely(
  publisher: WorkerPublisher,
  type: DiscoveryEvent['type'],
  worker: WorkerInfo,
): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await publisher.publish(type, worker);
      return;
    } catch (error) {
      if (attempt >= 50) throw error;
      await sleep(100);
    }
  }
}

const show = (event: DiscoveryEvent): string => `${event.type} ${event.worker.uid.slice(0, 8)}@${event.worker.version}`;

describe('etcd backend on a 3-member cluster', { timeout: 120_000 }, () => {
  let cluster: EtcdCluster;
  /** Releases each test's subscriptions and publishers, passed or failed. */
  const cleanups: (() => Promise<void>)[] = [];
  const deterministic = ConnectionPool.deterministicOrder;

  before(async () => {
    cluster = await startEtcdCluster(3);
    // Clients try their endpoints from the last one listed: each test decides who talks to which member.
    ConnectionPool.deterministicOrder = true;
  });
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });
  after(async () => {
    ConnectionPool.deterministicOrder = deterministic;
    await cluster.dispose();
  });

  /** The endpoints ordered so that clients talk to member `first` first. */
  const towards = (first: number): string[] => {
    const endpoints = cluster.endpoints;
    return [...endpoints.filter((_, i) => i !== first), endpoints[first] as string];
  };

  it('a member stopped mid-stream: every subscriber sees every change exactly once, in order', async () => {
    const namespace = uniqueNamespace('member');
    const subscribers = [0, 1, 2].map((member) => {
      const discovery = etcdDiscovery(namespace, { endpoints: towards(member), ttl: 5 });
      return new Recorder(discovery.events(), discovery.diagnostics);
    });
    // The publisher talks to another member: etcd3's lease keep-alive, like its watch manager, would keep
    // knocking on a dead member that is tried first (with random order, as in production, it moves on).
    const publisher = etcdDiscovery(namespace, { endpoints: towards(1), ttl: 5 }).publisher();
    cleanups.push(async () => {
      for (const recorder of subscribers) recorder.unsubscribe();
      await publisher.close();
    });
    const expected: string[] = [];
    const truth = new Map<string, WorkerInfo>();
    const change = async (type: DiscoveryEvent['type'], worker: WorkerInfo): Promise<void> => {
      await publishSurely(publisher, type, worker);
      const known = truth.has(worker.uid);
      if (type === 'worker-dropped') truth.delete(worker.uid);
      else truth.set(worker.uid, worker);
      const event =
        type === 'worker-dropped' ? (known ? 'worker-dropped' : undefined) : known ? 'worker-updated' : 'worker-added';
      if (event !== undefined) expected.push(show({ type: event, worker }));
    };
    await sleep(300); // let the subscriptions read the (empty) namespace
    let stopped = false;
    for (let step = 0; step < 120; step++) {
      if (step === 40) {
        // Mid-stream: kill the member the first subscriber talks to (the leader or not).
        await cluster.members[0]!.stop('SIGKILL');
        stopped = true;
      }
      const live = [...truth.values()];
      if (step % 5 === 4 && live.length > 0) {
        await change('worker-dropped', live[step % live.length] as WorkerInfo);
      } else if (step % 3 === 2 && live.length > 0) {
        const old = live[(step * 7) % live.length] as WorkerInfo;
        await change('worker-updated', workerInfo({ ...old, version: String(step) }));
      } else {
        await change('worker-added', makeWorker({ version: String(step) }));
      }
      await sleep(10);
    }
    assert.ok(stopped);
    for (const [i, recorder] of subscribers.entries()) {
      await waitFor(
        () => recorder.events.length >= expected.length,
        () => `subscriber ${i} to receive ${expected.length} events (has ${recorder.events.length})`,
        30_000,
      );
      await sleep(100);
      assert.deepEqual(recorder.events.map(show), expected, `subscriber ${i}: every change once, in order`);
      recorder.assertConsistent();
      assert.ok(recorder.matches(truth));
    }
    assert.ok(
      subscribers[0]!.diagnostics.some((diagnostic) => diagnostic.kind === 'warning'),
      'the subscriber on the stopped member noticed (its stream did break)',
    );
    await cluster.members[0]!.start();
  });

  it('the whole cluster stopped and restarted: subscribers reconnect and converge to the truth', async () => {
    const namespace = uniqueNamespace('restart');
    const ttl = 2;
    const subscribers = [0, 1, 2].map((member) => {
      const discovery = etcdDiscovery(namespace, { endpoints: towards(member), ttl });
      return new Recorder(discovery.events(), discovery.diagnostics);
    });
    const first = etcdDiscovery(namespace, { endpoints: towards(1), ttl });
    const second = etcdDiscovery(namespace, { endpoints: towards(2), ttl }).publisher();
    const firstDiagnostics: string[] = [];
    first.diagnostics.subscribe((diagnostic) => firstDiagnostics.push(`${diagnostic.kind}: ${diagnostic.message}`));
    const publisher = first.publisher();
    cleanups.push(async () => {
      for (const recorder of subscribers) recorder.unsubscribe();
      await publisher.close();
      await second.close();
    });
    const x = makeWorker();
    const y = makeWorker();
    await publishSurely(publisher, 'worker-added', x);
    await publishSurely(publisher, 'worker-added', y);
    for (const recorder of subscribers) await waitFor(() => recorder.workers.size === 2, 'X and Y');

    await cluster.stopAll();
    await sleep(2 * ttl * 1000 + 500); // long enough for the publisher to give its lease up for lost
    await cluster.startAll();
    const restarted = Date.now();

    // After the restart another publisher changes things.
    const z = makeWorker();
    await publishSurely(second, 'worker-added', z);
    await publishSurely(publisher, 'worker-dropped', y);
    const x2 = workerInfo({ ...x, version: '2' });
    await publishSurely(publisher, 'worker-updated', x2);
    const truth = new Map([
      [x.uid, x2],
      [z.uid, z],
    ]);
    for (const [i, recorder] of subscribers.entries()) {
      await waitFor(
        () => recorder.matches(truth),
        () =>
          `subscriber ${i} to converge; has ${[...recorder.workers.values()].map((w) => `${w.uid.slice(0, 8)}@${w.version}`).join(', ')}`,
        30_000,
      );
      recorder.assertConsistent();
      assert.ok(
        recorder.diagnostics.some((diagnostic) => diagnostic.kind === 'recovered'),
        `subscriber ${i} reported its recovery`,
      );
    }
    console.log(`# subscribers converged ${Date.now() - restarted} ms after the restart`);
    // The publisher's workers outlive the outage: its lease, lost, was replaced and X kept alive.
    await sleep(ttl * 1000 + 1000);
    for (const recorder of subscribers) assert.ok(recorder.matches(truth), 'still the truth after another ttl');
    assert.ok(
      firstDiagnostics.some((d) => d.startsWith('recovered: Re-published')),
      firstDiagnostics.join('\n'),
    );
  });
});
