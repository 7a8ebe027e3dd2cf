// The relay between real backends: the local backend (shared memory, its
// publisher in a child process) and a real etcd started here.
// - Loops: relays both ways between one local and one etcd namespace, in one
//   process: the counts stay exact for 10 s and no event storm happens.
// - Churn: 1,000 adds, updates and drops in the local source while relaying
//   into etcd: etcd ends equal to the source; each worker's versions, as an
//   etcd subscriber sees them, never go back.
// - etcd restart while relaying: the target converges once etcd is back,
//   without the worker dropped meanwhile and without a duplicate event.
// - Ownership: `woolrx relay` (a child process, NDJSON on its piped stdout)
//   killed by SIGKILL: its workers leave etcd after the lease TTL; stopped by
//   SIGTERM: withdrawn at once, exit 0.
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import type { Subscription } from 'rxjs';
import { etcdDiscovery } from '../../src/backends/etcd/etcdDiscovery.js';
import { localDiscovery } from '../../src/backends/local/localDiscovery.js';
import type { DiscoveryEventType } from '../../src/events/types.js';
import type { WorkerInfo } from '../../src/model/types.js';
import { workerInfo } from '../../src/model/workerInfo.js';
import { RELAY_MARK } from '../../src/relay/RELAY_MARK.js';
import { relayWorkers } from '../../src/relay/relayWorkers.js';
import type { RelayStatus, RelayStatusUpdate } from '../../src/relay/types.js';
import { startEtcd, type EtcdCluster } from '../backends/etcd/etcdHarness.js';
import {
  rawClient,
  Recorder as EtcdRecorder,
  uniqueNamespace as etcdNamespace,
  waitFor,
} from '../backends/etcd/helpers.js';
import {
  assertClean,
  Child,
  killChildren,
  Recorder as LocalRecorder,
  uniqueNamespace as localNamespace,
} from '../backends/local/helpers.js';
import { woolrx, type Child as CliChild } from '../cli/children.js';

const HOST = '10.99.0.1';
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

let serial = 0;
/** A worker on loopback with a fresh uid (as wool binds them), at a version. */
function worker(version = 1, uid?: string): WorkerInfo {
  serial++;
  return workerInfo({
    uid: uid ?? crypto.randomUUID(),
    address: `127.0.0.1:${20_000 + (serial % 20_000)}`,
    pid: process.pid,
    version: String(version),
  });
}

/** Keeps a relay's items; waits on its last status. */
class RelayRun {
  readonly items: RelayStatus[] = [];
  readonly subscription: Subscription;
  error: unknown;

  constructor(relay: ReturnType<typeof relayWorkers>) {
    this.subscription = relay.subscribe({
      next: (item) => this.items.push(item),
      error: (error: unknown) => (this.error = error),
    });
  }

  get status(): RelayStatusUpdate | undefined {
    return this.items.filter((item): item is RelayStatusUpdate => item.type === 'relay-status').at(-1);
  }

  until(condition: (status: RelayStatusUpdate) => boolean, what: string, timeout = 20_000): Promise<RelayStatusUpdate> {
    return waitFor(
      () => {
        if (this.error !== undefined)
          throw new Error(
            `the relay failed: ${this.error instanceof Error ? this.error.message : JSON.stringify(this.error)}`,
          );
        const status = this.status;
        return status !== undefined && condition(status) ? status : undefined;
      },
      `${what} (last items: ${JSON.stringify(this.items.slice(-3))})`,
      timeout,
    );
  }
}

describe('relay between local and etcd', { timeout: 180_000 }, () => {
  let etcd: EtcdCluster;
  const cleanups: (() => unknown)[] = [];

  before(async () => {
    etcd = await startEtcd();
  });
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    await killChildren();
  });
  after(async () => {
    await etcd?.dispose();
  });

  it('loops: relays both ways between one local and one etcd namespace keep the counts exact for 10 s, no event storm', async () => {
    const localNs = localNamespace('relay-loop');
    const etcdNs = etcdNamespace('relay-loop');
    const local = localDiscovery(localNs);
    const cluster = etcdDiscovery(etcdNs, { endpoints: etcd.endpoints, ttl: 5 });
    const child = new Child('publisher.ts', [localNs, '{}']);
    const localWorkers = [worker(), worker(), worker()];
    const etcdWorkers = [worker(1), worker(1)].map((w) =>
      workerInfo({ ...w, address: w.address.replace('127.0.0.1', '10.50.0.1') }),
    );
    cleanups.push(() =>
      assertClean(
        localNs,
        [...localWorkers, ...etcdWorkers].map((w) => w.uid),
      ),
    );
    cleanups.push(() => child.call({ op: 'exit' }).catch(() => undefined));
    await new Promise((resolve) => child.process.once('message', resolve));
    await child.call({ op: 'run', workers: localWorkers.map((w) => ({ type: 'worker-added', worker: w })) });
    const etcdPublisher = cluster.publisher();
    cleanups.push(() => etcdPublisher.close());
    for (const w of etcdWorkers) await etcdPublisher.publish('worker-added', w);

    const toEtcd = new RelayRun(relayWorkers(local, cluster, { id: 'loop-to-etcd', advertiseHost: HOST }));
    const toLocal = new RelayRun(
      relayWorkers(cluster, local, { id: 'loop-to-local', sameHost: true, pid: process.pid }),
    );
    cleanups.push(() => toEtcd.subscription.unsubscribe());
    cleanups.push(() => toLocal.subscription.unsubscribe());
    const localSeen = new LocalRecorder(local.events());
    const etcdSeen = new EtcdRecorder(cluster.events());
    cleanups.push(() => localSeen.stop());
    cleanups.push(() => etcdSeen.unsubscribe());

    await toEtcd.until((s) => s.synced && s.relayed === 3, 'local → etcd synced');
    await toLocal.until((s) => s.synced && s.relayed === 2, 'etcd → local synced');
    await waitFor(() => localSeen.workers.size === 5 && etcdSeen.workers.size === 5, 'five workers on each side');
    // Each relay sees the other's copies through a subscription of its own, which may learn of them
    // after the recorders did: the quiet period starts once both have reported skipping them.
    const settled = (relayed: number, skipped: number) => (s: RelayStatusUpdate) =>
      s.synced && s.pending === 0 && s.relayed === relayed && s.skipped === skipped;
    await toEtcd.until(settled(3, 2), "local → etcd skipped etcd → local's 2 copies");
    await toLocal.until(settled(2, 3), "etcd → local skipped local → etcd's 3 copies");
    const events = {
      local: localSeen.events.length,
      etcd: etcdSeen.events.length,
      toEtcd: toEtcd.items.length,
      toLocal: toLocal.items.length,
    };
    await sleep(10_000);
    assert.equal(localSeen.workers.size, 5, 'local: 3 own + 2 relayed from etcd');
    assert.equal(etcdSeen.workers.size, 5, 'etcd: 2 own + 3 relayed from local');
    assert.equal(
      localSeen.events.length,
      events.local,
      `no local event in 10 s: ${JSON.stringify(localSeen.events.slice(events.local).map((e) => e.type))}`,
    );
    assert.equal(etcdSeen.events.length, events.etcd, 'no etcd event in 10 s');
    assert.deepEqual(
      { toEtcd: toEtcd.items.slice(events.toEtcd), toLocal: toLocal.items.slice(events.toLocal) },
      { toEtcd: [], toLocal: [] },
      'the relays had nothing to say',
    );
    etcdSeen.assertConsistent();
    // Each side: its own workers unmarked, the other side's marked by the relay that copied them.
    for (const w of localWorkers) {
      assert.equal(localSeen.workers.get(w.uid)?.extra[RELAY_MARK], undefined);
      assert.equal(etcdSeen.workers.get(w.uid)?.extra[RELAY_MARK], 'loop-to-etcd');
      assert.equal(etcdSeen.workers.get(w.uid)?.address, w.address.replace('127.0.0.1', HOST));
    }
    for (const w of etcdWorkers) {
      assert.equal(etcdSeen.workers.get(w.uid)?.extra[RELAY_MARK], undefined);
      assert.equal(localSeen.workers.get(w.uid)?.extra[RELAY_MARK], 'loop-to-local');
    }
    const skipped = [...toEtcd.items, ...toLocal.items].filter((item) => item.type === 'relay-skipped');
    assert.equal(skipped.length, 5, "each relay skipped the other's copies, once each");
  });

  it("churn: 1,000 adds, updates and drops in the source; etcd ends equal to it, each worker's versions never go back", async () => {
    const localNs = localNamespace('relay-churn');
    const etcdNs = etcdNamespace('relay-churn');
    const local = localDiscovery(localNs);
    const cluster = etcdDiscovery(etcdNs, { endpoints: etcd.endpoints, ttl: 5 });
    const child = new Child('publisher.ts', [localNs, JSON.stringify({ capacity: 512 })]);
    await new Promise((resolve) => child.process.once('message', resolve));
    const everyUid = new Set<string>();
    cleanups.push(() => assertClean(localNs, everyUid));
    cleanups.push(() => child.call({ op: 'exit' }).catch(() => undefined));
    const etcdSeen = new EtcdRecorder(cluster.events());
    cleanups.push(() => etcdSeen.unsubscribe());
    const relay = new RelayRun(relayWorkers(local, cluster, { id: 'churn', advertiseHost: HOST }));
    cleanups.push(() => relay.subscription.unsubscribe());
    await relay.until((s) => s.synced, 'relay started');

    // 1,000 changes: new workers, updates (version + 1), drops, re-adds of dropped uids (version + 1).
    const live = new Map<string, WorkerInfo>();
    const gone = new Map<string, WorkerInfo>();
    const ops: { type: DiscoveryEventType; worker: WorkerInfo }[] = [];
    let seed = 12345;
    const random = (): number => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    const pick = (map: Map<string, WorkerInfo>): WorkerInfo =>
      [...map.values()][Math.floor(random() * map.size)] as WorkerInfo;
    while (ops.length < 1000) {
      const roll = random();
      if (live.size < 40 || (roll < 0.3 && live.size < 200)) {
        const w = worker(1);
        live.set(w.uid, w);
        everyUid.add(w.uid);
        ops.push({ type: 'worker-added', worker: w });
      } else if (roll < 0.7) {
        const old = pick(live);
        const w = workerInfo({ ...old, version: String(Number(old.version) + 1) });
        live.set(w.uid, w);
        ops.push({ type: 'worker-updated', worker: w });
      } else if (roll < 0.9 || gone.size === 0) {
        const w = pick(live);
        live.delete(w.uid);
        gone.set(w.uid, w);
        ops.push({ type: 'worker-dropped', worker: w });
      } else {
        const old = pick(gone);
        gone.delete(old.uid);
        const w = workerInfo({ ...old, version: String(Number(old.version) + 1) });
        live.set(w.uid, w);
        ops.push({ type: 'worker-added', worker: w });
      }
    }
    // In batches, so that the source changes while the relay is writing.
    for (let i = 0; i < ops.length; i += 50) await child.call({ op: 'run', workers: ops.slice(i, i + 50) });

    const expected = new Map(
      [...live].map(([uid, w]) => [
        uid,
        workerInfo({ ...w, address: w.address.replace('127.0.0.1', HOST), extra: { [RELAY_MARK]: 'churn' } }),
      ]),
    );
    await waitFor(
      () => etcdSeen.matches(expected),
      () => `etcd equal to the source (${etcdSeen.workers.size} vs ${expected.size})`,
      60_000,
    );
    await relay.until((s) => s.synced && s.relayed === live.size, 'relay synced');
    etcdSeen.assertConsistent();
    for (const uid of everyUid) {
      const versions = etcdSeen.events
        .filter((event) => event.worker.uid === uid)
        .map((event) => Number(event.worker.version));
      for (let i = 1; i < versions.length; i++) {
        assert.ok(
          (versions[i] as number) >= (versions[i - 1] as number),
          `worker ${uid}: versions went back: ${versions.join(' ')}`,
        );
      }
    }
    const raw = rawClient(etcd.endpoints);
    try {
      const keys = await raw.getAll().prefix(`/woolrx/${etcdNs}/workers/`).keys();
      assert.deepEqual(
        keys.map((key) => key.split('/').at(-1)).sort(),
        [...live.keys()].sort(),
        "exactly the source's workers in etcd",
      );
    } finally {
      raw.close();
    }
    console.log(
      `# churn: ${ops.length} changes, ${etcdSeen.events.length} etcd events, ${live.size} workers at the end`,
    );
  });

  it('etcd restarts while relaying: the target converges once it is back, no ghost, no duplicate', async () => {
    const localNs = localNamespace('relay-restart');
    const etcdNs = etcdNamespace('relay-restart');
    const local = localDiscovery(localNs);
    const cluster = etcdDiscovery(etcdNs, { endpoints: etcd.endpoints, ttl: 5, requestTimeout: 1000 });
    const publisher = local.publisher();
    const [a, b, c, d] = [worker(1), worker(1), worker(1), worker(1)];
    cleanups.push(() =>
      assertClean(
        localNs,
        [a, b, c, d].map((w) => w.uid),
      ),
    );
    cleanups.push(() => publisher.close());
    for (const w of [a, b, c]) await publisher.publish('worker-added', w);
    const relay = new RelayRun(relayWorkers(local, cluster, { id: 'restart', advertiseHost: HOST }));
    cleanups.push(() => relay.subscription.unsubscribe());
    await relay.until((s) => s.synced && s.relayed === 3, 'three relayed');
    const etcdSeen = new EtcdRecorder(cluster.events());
    cleanups.push(() => etcdSeen.unsubscribe());
    await waitFor(() => etcdSeen.workers.size === 3, 'three in etcd');

    await etcd.stopAll();
    try {
      await publisher.publish('worker-dropped', a); // the ghost to be: dropped while etcd is down
      await publisher.publish('worker-updated', workerInfo({ ...b, version: '2' }));
      await publisher.publish('worker-added', d);
      await relay.until((s) => s.target === 'down', 'the relay notices etcd is down');
      await sleep(1500);
    } finally {
      await etcd.startAll();
    }
    const expected = new Map(
      [workerInfo({ ...b, version: '2' }), c, d].map((w) => [
        w.uid,
        workerInfo({ ...w, address: w.address.replace('127.0.0.1', HOST), extra: { [RELAY_MARK]: 'restart' } }),
      ]),
    );
    await waitFor(
      () => etcdSeen.matches(expected),
      () =>
        `etcd converged (${[...etcdSeen.workers.values()].map((w) => `${w.uid.slice(0, 8)}@${w.version}`).join(' ')})`,
      30_000,
    );
    await relay.until((s) => s.target === 'up' && s.synced, 'relay up and synced', 30_000);
    await sleep(1000);
    assert.ok(etcdSeen.matches(expected), 'still converged');
    etcdSeen.assertConsistent();
    assert.deepEqual(etcdSeen.history(a.uid), ['worker-added@1', 'worker-dropped@1']);
    assert.deepEqual(etcdSeen.history(b.uid), ['worker-added@1', 'worker-updated@2']);
    assert.deepEqual(etcdSeen.history(d.uid), ['worker-added@1']);
    const raw = rawClient(etcd.endpoints);
    try {
      const keys = await raw.getAll().prefix(`/woolrx/${etcdNs}/workers/`).keys();
      assert.equal(keys.length, 3, 'no ghost key');
    } finally {
      raw.close();
    }
  });

  it('woolrx relay killed by SIGKILL: its workers leave etcd after the lease TTL; stopped by SIGTERM: withdrawn at once, exit 0', async () => {
    const localNs = localNamespace('relay-kill');
    const etcdNs = etcdNamespace('relay-kill');
    const local = localDiscovery(localNs);
    const cluster = etcdDiscovery(etcdNs, { endpoints: etcd.endpoints });
    const publisher = local.publisher();
    const workers = [worker(), worker(), worker()];
    cleanups.push(() =>
      assertClean(
        localNs,
        workers.map((w) => w.uid),
      ),
    );
    cleanups.push(() => publisher.close());
    for (const w of workers) await publisher.publish('worker-added', w);
    const etcdSeen = new EtcdRecorder(cluster.events());
    cleanups.push(() => etcdSeen.unsubscribe());
    const args = [
      'relay',
      '--from',
      'local',
      '-n',
      localNs,
      '--to',
      'etcd',
      '--to-namespace',
      etcdNs,
      '--endpoints',
      etcd.endpoints.join(','),
      '--ttl',
      '2',
      '--advertise-host',
      HOST,
    ];
    const started = async (): Promise<CliChild> => {
      const relay = woolrx(args);
      cleanups.push(() => relay.stop('SIGKILL'));
      for (;;) {
        const item = JSON.parse(await relay.line(20_000)) as RelayStatus;
        if (item.type === 'relay-status' && item.synced && item.relayed === 3) return relay;
      }
    };

    const first = await started();
    await waitFor(() => etcdSeen.workers.size === 3, 'three in etcd');
    const killed = Date.now();
    await first.stop('SIGKILL');
    await waitFor(() => etcdSeen.workers.size === 0, 'the lease expired', 10_000);
    const expiredAfter = Date.now() - killed;
    assert.ok(expiredAfter >= 1000, `dropped by the lease's expiry (ttl 2 s), not before: ${expiredAfter} ms`);

    const second = await started();
    await waitFor(() => etcdSeen.workers.size === 3, 'three in etcd again');
    const stopping = Date.now();
    assert.deepEqual(await second.stop('SIGTERM'), { code: 0, signal: null }, second.stderr);
    await waitFor(() => etcdSeen.workers.size === 0, 'withdrawn', 3000);
    assert.ok(Date.now() - stopping < 2000, 'withdrawn at once (lease revoked), not by expiry');
    const rest = [...second.pending()];
    for (;;) {
      try {
        rest.push(await second.line(2000));
      } catch {
        break; // stdout ended
      }
    }
    const last = rest.map((line) => JSON.parse(line) as RelayStatus).at(-1);
    assert.deepEqual(
      last,
      { type: 'relay-status', relayed: 0, skipped: 0, pending: 0, target: 'up', synced: true },
      'the last NDJSON line',
    );
    etcdSeen.assertConsistent();
    console.log(`# SIGKILLed relay's workers expired after ${expiredAfter} ms (ttl 2 s)`);
  });
});
