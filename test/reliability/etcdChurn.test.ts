// Churn on the etcd backend through faults, bounded for CI. A
// 3-member cluster on loopback; two publishers make random add / update /
// re-add / drop operations while a member is killed, quorum is lost and
// restored, and a subscriber is cut off (a TCP proxy) while the revisions it
// missed are compacted. Afterwards every subscriber's folded state equals
// the truth; per uid nothing is duplicated, out of order, spurious, ghost or
// resurrected; the subscribers never cut off saw every change in order.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { ConnectionPool } from 'etcd3/lib/connection-pool.js';
import { etcdDiscovery } from '../../src/backends/etcd/etcdDiscovery.js';
import type { WorkerPublisher } from '../../src/discovery/types.js';
import type { DiscoveryEventType } from '../../src/events/types.js';
import type { WorkerInfo } from '../../src/model/types.js';
import { workerInfo } from '../../src/model/workerInfo.js';
import { startEtcdCluster, type EtcdCluster } from '../backends/etcd/etcdHarness.js';
import { rawClient, Recorder, uniqueNamespace, waitFor } from '../backends/etcd/helpers.js';
import { startTcpProxy, type TcpProxy } from '../backends/etcd/tcpProxy.js';
import { checkStream, serialOf } from './streamCheck.js';

const POOL = 10; // uids per publisher
const OPS_PER_PHASE = 60; // per publisher, 5 phases: 600 operations
const TTL = 10;

type Expected = { type: DiscoveryEventType; serial: number };

/**
 * Publishes, retrying while the cluster has no leader (a retried change is idempotent; a drop that already happened is
 * done).
 */
async function publishSurely(
  publisher: WorkerPublisher,
  type: DiscoveryEventType,
  worker: WorkerInfo,
): Promise<number> {
  for (let attempt = 0; ; attempt++) {
    try {
      await publisher.publish(type, worker);
      return attempt;
    } catch (error) {
      if (attempt >= 100) throw error;
      await sleep(100);
    }
  }
}

describe('etcd backend churn through faults', { timeout: 120_000 }, () => {
  let cluster: EtcdCluster;
  let proxy: TcpProxy;
  const deterministic = ConnectionPool.deterministicOrder;

  before(async () => {
    cluster = await startEtcdCluster(3);
    proxy = await startTcpProxy(cluster.members[2]!.clientPort);
    // Clients try their endpoints from the last one listed.
    ConnectionPool.deterministicOrder = true;
  });
  after(async () => {
    ConnectionPool.deterministicOrder = deterministic;
    await proxy.close();
    await cluster.dispose();
  });

  /** The endpoints ordered so that clients talk to member `first` first. */
  const towards = (first: number): string[] => {
    const endpoints = cluster.endpoints;
    return [...endpoints.filter((_, i) => i !== first), endpoints[first] as string];
  };

  it('2 publishers × 600 operations; a member killed, quorum lost and restored, compaction while a subscriber is cut off', async () => {
    const started = Date.now();
    const namespace = uniqueNamespace('churn16');
    const direct = [0, 1, 2].map((member) => {
      const discovery = etcdDiscovery(namespace, { endpoints: towards(member), ttl: TTL });
      return new Recorder(discovery.events(), discovery.diagnostics);
    });
    const cutDiscovery = etcdDiscovery(namespace, { endpoints: [proxy.endpoint], ttl: TTL });
    const cut = new Recorder(cutDiscovery.events(), cutDiscovery.diagnostics);
    // Publishers talk to member 2, which stays up throughout.
    const publishers = [0, 1].map(() => etcdDiscovery(namespace, { endpoints: towards(2), ttl: TTL }).publisher());
    const raw = rawClient(towards(2));
    try {
      await sleep(300); // let the subscriptions read the (empty) namespace
      const truth = new Map<string, WorkerInfo>();
      const expected = new Map<string, Expected[]>();
      const published = new Set<string>();
      const serials = new Map<string, number>();
      let seed = 0x16e7c;
      const random = (): number => {
        seed = (seed * 1103515245 + 12345) % 2147483648;
        return seed / 2147483648;
      };
      const uids = publishers.map((_, p) =>
        Array.from(
          { length: POOL },
          (_, i) =>
            `${(p + 0xe1).toString(16).padStart(8, '0')}-0000-4000-8000-${(i + 1).toString(16).padStart(12, '0')}`,
        ),
      );
      const make = (uid: string): WorkerInfo => {
        const serial = (serials.get(uid) ?? 0) + 1;
        serials.set(uid, serial);
        published.add(`${uid} v${serial}`);
        return workerInfo({
          uid,
          address: `127.0.0.1:${21_000 + serial}`,
          pid: process.pid,
          version: `v${serial}`,
          tags: random() < 0.5 ? ['gpu'] : [],
        });
      };
      const note = (uid: string, type: DiscoveryEventType, worker: WorkerInfo): void => {
        const list = expected.get(uid) ?? [];
        list.push({ type, serial: serialOf(worker) ?? -1 });
        expected.set(uid, list);
      };
      let retries = 0;
      /** One publisher's next random operation (publishers own disjoint uids: per-uid order is theirs). */
      const step = async (p: number): Promise<void> => {
        const uid = uids[p]?.[Math.floor(random() * POOL)] ?? '';
        const current = truth.get(uid);
        const roll = random();
        const publisher = publishers[p] as WorkerPublisher;
        if (current === undefined) {
          const worker = make(uid);
          truth.set(uid, worker);
          note(uid, 'worker-added', worker);
          retries += await publishSurely(publisher, 'worker-added', worker);
        } else if (roll < 0.3) {
          const worker = make(uid);
          truth.set(uid, worker);
          note(uid, 'worker-updated', worker);
          retries += await publishSurely(publisher, 'worker-updated', worker);
        } else if (roll < 0.45) {
          retries += await publishSurely(publisher, 'worker-added', current); // same metadata: no event
        } else if (roll < 0.6) {
          const worker = make(uid);
          truth.set(uid, worker);
          note(uid, 'worker-updated', worker);
          retries += await publishSurely(publisher, 'worker-added', worker);
        } else {
          truth.delete(uid);
          note(uid, 'worker-dropped', current);
          retries += await publishSurely(publisher, 'worker-dropped', current);
        }
      };
      const phase = async (): Promise<void> => {
        await Promise.all(
          publishers.map(async (_, p) => {
            for (let n = 0; n < OPS_PER_PHASE; n++) await step(p);
          }),
        );
      };

      await phase();
      // A member killed: the subscriber on it moves to another, from the last revision it delivered.
      await cluster.members[0]!.stop('SIGKILL');
      await phase();
      // Quorum lost (one member of three left): writes wait; then restored.
      await cluster.members[1]!.stop('SIGKILL');
      let written = false;
      const lost = Promise.all(publishers.map(async (_, p) => step(p))).then(() => (written = true));
      await sleep(1_500);
      assert.equal(written, false, 'no write completes without quorum');
      await cluster.members[0]!.start();
      await cluster.members[1]!.start();
      await lost;
      await phase();
      // A subscriber cut off while the revisions it misses are compacted.
      proxy.cut();
      await phase();
      const { header } = await raw.getAll().prefix('/').limit(1).exec();
      await raw.kv.compact({ revision: header.revision, physical: true });
      proxy.restore();
      await phase();

      const subscribers = [...direct, cut];
      for (const [i, recorder] of subscribers.entries()) {
        await waitFor(
          () => recorder.matches(truth),
          () => `subscriber ${i} to converge on ${truth.size} workers (has ${recorder.workers.size})`,
          30_000,
        );
      }
      await sleep(200);
      const violations: string[] = [];
      for (const [i, recorder] of subscribers.entries()) {
        const check = checkStream(recorder.events, `subscriber ${i}`);
        violations.push(...check.violations, ...recorder.problems.map((problem) => `subscriber ${i}: ${problem}`));
        if (recorder.error !== undefined)
          violations.push(
            `subscriber ${i}: errored ${recorder.error instanceof Error ? recorder.error.message : JSON.stringify(recorder.error)}`,
          );
        for (const { worker } of recorder.events) {
          if (!published.has(`${worker.uid} v${serialOf(worker) ?? '?'}`))
            violations.push(`subscriber ${i}: ghost ${worker.uid} ${worker.version}`);
        }
      }
      // Nothing lost: subscribers never cut off saw every change, in order, across the member's death and the quorum
      // loss.
      for (const [i, recorder] of direct.entries()) {
        for (const [uid, list] of expected) {
          const seen = recorder.events
            .filter((event) => event.worker.uid === uid)
            .map(({ type, worker }) => ({ type, serial: serialOf(worker) ?? -1 }));
          if (JSON.stringify(seen) !== JSON.stringify(list))
            violations.push(`subscriber ${i}: ${uid}: saw ${JSON.stringify(seen)}, expected ${JSON.stringify(list)}`);
        }
      }
      assert.ok(
        cut.diagnostics.some((diagnostic) => /compacted/.test(diagnostic.message)),
        `the cut-off subscriber re-read after the compaction: ${cut.diagnostics.map((d) => d.message).join(' | ')}`,
      );
      const ops = 5 * OPS_PER_PHASE * publishers.length + publishers.length;
      console.log(
        `# etcd churn: ${ops} operations (${retries} retried), 2 publishers, ${subscribers.length} subscribers, ` +
          `${[...expected.values()].reduce((n, list) => n + list.length, 0)} expected events per full subscriber; ` +
          `violations (lost/ghost/spurious/resurrected): ${violations.length}; ${Date.now() - started} ms`,
      );
      assert.deepEqual(violations.slice(0, 20), [], `${violations.length} violations`);
    } finally {
      for (const recorder of [...direct, cut]) recorder.unsubscribe();
      for (const publisher of publishers) await publisher.close();
      raw.close();
    }
  });
});
