// etcd subscriber behaviour against a real single-node etcd: the initial
// burst and the synced signal, exactly-once delivery across the read/watch
// boundary and across reconnections, compaction, unchanged and malformed
// records.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import type { Etcd3 } from 'etcd3';
import { firstValueFrom, Subject } from 'rxjs';
import { EtcdConnection } from '../../../src/backends/etcd/EtcdConnection.js';
import { etcdDiscovery } from '../../../src/backends/etcd/etcdDiscovery.js';
import { EtcdWatch } from '../../../src/backends/etcd/EtcdWatch.js';
import { etcdSettings } from '../../../src/backends/etcd/etcdSettings.js';
import { encodeWorker } from '../../../src/codec/encodeWorker.js';
import type { DiscoverySink } from '../../../src/discovery/DiscoverySink.js';
import type { Discovery, DiscoveryDiagnostic } from '../../../src/discovery/types.js';
import type { DiscoveryEvent, WorkerSnapshot } from '../../../src/events/types.js';
import type { WorkerInfo } from '../../../src/model/types.js';
import { workerInfo } from '../../../src/model/workerInfo.js';
import { startEtcd, type EtcdCluster } from './etcdHarness.js';
import { makeWorker, rawClient, Recorder, uniqueNamespace, waitFor } from './helpers.js';
import { startTcpProxy } from './tcpProxy.js';

function assertReleased(discovery: Discovery): void {
  const connection = EtcdConnection.of(discovery);
  assert.ok(connection);
  assert.equal(connection.users, 0, 'the client is still in use');
  assert.equal(connection.open, false, 'the client is still open');
}

describe('etcd subscriber', { timeout: 60_000 }, () => {
  let etcd: EtcdCluster;
  let raw: Etcd3;
  const key = (namespace: string, uid: string): string => `/woolrx/${namespace}/workers/${uid}`;

  before(async () => {
    etcd = await startEtcd();
    raw = rawClient(etcd.endpoints);
  });
  after(async () => {
    raw.close();
    await etcd.dispose();
  });

  it('emits every current worker as worker-added in one synchronous burst', async () => {
    const discovery = etcdDiscovery(uniqueNamespace('burst'), { endpoints: etcd.endpoints });
    const publisher = discovery.publisher();
    const workers = Array.from({ length: 300 }, () => makeWorker());
    for (const worker of workers) await publisher.publish('worker-added', worker);
    const seen: DiscoveryEvent[] = [];
    let inFirstTurn = -1;
    const subscription = discovery.events().subscribe((event) => {
      seen.push(event);
      if (seen.length === 1) queueMicrotask(() => (inFirstTurn = seen.length));
    });
    await waitFor(() => seen.length === 300, 'the 300 workers');
    await sleep(20);
    assert.equal(inFirstTurn, 300, 'every initial worker arrived before the first microtask ran');
    assert.ok(seen.every((event) => event.type === 'worker-added'));
    assert.deepEqual(new Set(seen.map((event) => event.worker.uid)), new Set(workers.map((worker) => worker.uid)));
    subscription.unsubscribe();
    await publisher.close();
    assertReleased(discovery);
  });

  it('subscribers starting while workers change each see every change exactly once and converge', async () => {
    const namespace = uniqueNamespace('race');
    const discovery = etcdDiscovery(namespace, { endpoints: etcd.endpoints });
    const writer = etcdDiscovery(namespace, { endpoints: etcd.endpoints });
    const publisher = writer.publisher();
    const truth = new Map<string, WorkerInfo>();
    const recorders: Recorder[] = [];
    for (let round = 0; round < 60; round++) {
      const worker = makeWorker({ version: String(round) });
      await publisher.publish('worker-added', worker);
      truth.set(worker.uid, worker);
      if (round % 3 === 1) {
        const [uid, old] = [...truth][round % truth.size] as [string, WorkerInfo];
        const changed = workerInfo({ ...old, version: `${old.version}+` });
        await publisher.publish('worker-updated', changed);
        truth.set(uid, changed);
      }
      if (round % 4 === 3) {
        const [uid, old] = [...truth][0] as [string, WorkerInfo];
        await publisher.publish('worker-dropped', old);
        truth.delete(uid);
      }
      if (round % 5 === 0) recorders.push(new Recorder(discovery.events()));
    }
    for (const recorder of recorders) {
      await waitFor(
        () => recorder.matches(truth),
        () => `a subscriber to converge (has ${recorder.workers.size}, truth ${truth.size})`,
      );
      recorder.assertConsistent();
    }
    // Late ones started from the same truth, with nothing missed or repeated in between.
    for (const recorder of recorders) recorder.unsubscribe();
    await publisher.close();
    assertReleased(discovery);
    assertReleased(writer);
  });

  it('a PUT that does not change the worker emits nothing; one that does emits worker-updated', async () => {
    const namespace = uniqueNamespace('same');
    const discovery = etcdDiscovery(namespace, { endpoints: etcd.endpoints });
    const a = makeWorker({ tags: ['b', 'a'], extra: { x: '1', y: '2' } });
    await raw.put(key(namespace, a.uid)).value(Buffer.from(encodeWorker(a)));
    const recorder = new Recorder(discovery.events(), discovery.diagnostics);
    await waitFor(() => recorder.events.length === 1, 'A added');
    await raw.put(key(namespace, a.uid)).value(Buffer.from(encodeWorker(a)));
    await raw.put(key(namespace, a.uid)).value(Buffer.from(encodeWorker(workerInfo({ ...a, tags: ['a', 'b'] }))));
    const a2 = workerInfo({ ...a, address: '127.0.0.1:1' });
    await raw.put(key(namespace, a.uid)).value(Buffer.from(encodeWorker(a2)));
    await waitFor(() => recorder.events.length >= 2, 'the update');
    await sleep(100);
    assert.deepEqual(
      recorder.events.map((event) => event.type),
      ['worker-added', 'worker-updated'],
    );
    assert.equal(recorder.events[1]?.worker.address, '127.0.0.1:1');
    await raw.delete().key(key(namespace, a.uid));
    await waitFor(() => recorder.events.length === 3, 'the drop');
    assert.equal(recorder.events[2]?.type, 'worker-dropped');
    assert.equal(recorder.events[2]?.worker.address, '127.0.0.1:1', 'dropped with its last metadata');
    assert.equal(recorder.events[2]?.reason, undefined, 'a deleted key does not say why');
    recorder.assertConsistent();
    assert.deepEqual(recorder.diagnostics, []);
    recorder.unsubscribe();
    assertReleased(discovery);
  });

  it('skips and reports records that do not decode, in the initial read and in the watch', async () => {
    const namespace = uniqueNamespace('bad');
    const discovery = etcdDiscovery(namespace, { endpoints: etcd.endpoints });
    const good = makeWorker();
    const other = makeWorker();
    const liar = makeWorker();
    await raw.put(key(namespace, good.uid)).value(Buffer.from(encodeWorker(good)));
    await raw.put(key(namespace, 'junk-1')).value(Buffer.from([0xff, 0xff, 0xff]));
    // A valid record stored under another worker's key.
    await raw.put(key(namespace, liar.uid)).value(Buffer.from(encodeWorker(other)));
    const recorder = new Recorder(discovery.events(), discovery.diagnostics);
    await waitFor(
      () => recorder.events.length === 1 && recorder.diagnostics.length === 2,
      'one worker and two diagnostics',
    );
    assert.equal(recorder.events[0]?.worker.uid, good.uid);
    const malformed = recorder.diagnostics.filter((diagnostic) => diagnostic.kind === 'malformed-record');
    assert.equal(malformed.length, 2);
    assert.deepEqual(malformed.map((diagnostic) => diagnostic.uid).sort(), ['junk-1', liar.uid].sort());
    assert.ok(malformed.every((diagnostic) => diagnostic.namespace === namespace));
    assert.ok(malformed.some((diagnostic) => diagnostic.message.includes(`not the key's "${liar.uid}"`)));

    // In the watch: garbage for a new key is skipped; garbage over a known worker drops it.
    await raw.put(key(namespace, 'junk-2')).value('not protobuf');
    await raw.put(key(namespace, good.uid)).value(Buffer.from([0x0a, 0xff]));
    const late = makeWorker();
    await raw.put(key(namespace, late.uid)).value(Buffer.from(encodeWorker(late)));
    await waitFor(() => recorder.events.length === 3, 'the drop and the late worker');
    assert.deepEqual(recorder.history(good.uid), ['worker-added@1', 'worker-dropped@1']);
    assert.equal(
      recorder.events.find((event) => event.type === 'worker-dropped')?.reason,
      'malformed',
      'dropped because its record turned malformed',
    );
    assert.deepEqual(recorder.history(late.uid), ['worker-added@1']);
    assert.equal(recorder.diagnostics.filter((diagnostic) => diagnostic.kind === 'malformed-record').length, 4);
    recorder.assertConsistent();
    recorder.unsubscribe();
    assertReleased(discovery);
  });

  it('reads a namespace larger than a page over several pages at one revision, every worker once', async () => {
    const namespace = uniqueNamespace('pages');
    // ~3 kB records: the read takes a 1000-key first page, then the rest (~5 MB) in two key-range parts.
    const workers = Array.from({ length: 2600 }, (_, i) =>
      makeWorker({ extra: { pad: 'x'.repeat(3000), i: String(i) } }),
    );
    for (let i = 0; i < workers.length; i += 200) {
      await Promise.all(
        workers
          .slice(i, i + 200)
          .map((worker) => raw.put(key(namespace, worker.uid)).value(Buffer.from(encodeWorker(worker)))),
      );
    }
    // Malformed records in the first and in the last page (keys sort around the uuids).
    await raw.put(key(namespace, '0-junk')).value(Buffer.from([0xff, 0xff]));
    await raw.put(key(namespace, 'z-junk')).value('not protobuf');
    const discovery = etcdDiscovery(namespace, { endpoints: etcd.endpoints });
    const recorder = new Recorder(discovery.events(), discovery.diagnostics);
    // Changes racing the read: each is seen once, either in the read or in the watch.
    const late = Array.from({ length: 50 }, () => makeWorker());
    await Promise.all(
      late.map((worker) => raw.put(key(namespace, worker.uid)).value(Buffer.from(encodeWorker(worker)))),
    );
    const gone = workers.slice(0, 20);
    await Promise.all(gone.map((worker) => raw.delete().key(key(namespace, worker.uid))));
    const expected = new Map([...workers.slice(20), ...late].map((worker) => [worker.uid, worker]));
    await waitFor(() => recorder.matches(expected), 'every worker', 30_000);
    await sleep(100);
    recorder.assertConsistent();
    for (const worker of workers.slice(20)) assert.deepEqual(recorder.history(worker.uid), ['worker-added@1']);
    const malformed = recorder.diagnostics.filter((diagnostic) => diagnostic.kind === 'malformed-record');
    assert.deepEqual(malformed.map((diagnostic) => diagnostic.uid).sort(), ['0-junk', 'z-junk']);
    recorder.unsubscribe();
    assertReleased(discovery);
  });

  it('resumes a broken watch from the last delivered revision: no gap, no duplicate', async () => {
    const namespace = uniqueNamespace('resume');
    const proxy = await startTcpProxy(etcd.members[0]!.clientPort);
    const discovery = etcdDiscovery(namespace, { endpoints: [proxy.endpoint] });
    const publisher = etcdDiscovery(namespace, { endpoints: etcd.endpoints }).publisher();
    try {
      const a = makeWorker();
      const c = makeWorker();
      await publisher.publish('worker-added', a);
      await publisher.publish('worker-added', c);
      const recorder = new Recorder(discovery.events(), discovery.diagnostics);
      await waitFor(() => recorder.events.length === 2, 'A and C');
      proxy.cut();
      const b = makeWorker();
      await publisher.publish('worker-added', b);
      await publisher.publish('worker-updated', workerInfo({ ...a, version: '2' }));
      await publisher.publish('worker-dropped', c);
      await publisher.publish('worker-updated', workerInfo({ ...a, version: '3' }));
      await sleep(300);
      proxy.restore();
      const started = Date.now();
      await waitFor(() => recorder.events.length >= 6, 'the four changes', 15_000);
      const resumedAfter = Date.now() - started;
      await sleep(100);
      assert.deepEqual(
        recorder.events
          .slice(2)
          .map(
            (event) =>
              `${event.type} ${event.worker.uid === a.uid ? 'A' : event.worker.uid === b.uid ? 'B' : 'C'}@${event.worker.version}`,
          ),
        ['worker-added B@1', 'worker-updated A@2', 'worker-dropped C@1', 'worker-updated A@3'],
        'the missed changes, in order, once each',
      );
      recorder.assertConsistent();
      assert.ok(
        recorder.diagnostics.some((diagnostic) => diagnostic.kind === 'warning'),
        'the break was reported',
      );
      assert.ok(
        recorder.diagnostics.some((diagnostic) => diagnostic.kind === 'recovered'),
        'the recovery was reported',
      );
      console.log(`# resumed ${resumedAfter} ms after the connection came back`);
      recorder.unsubscribe();
      assertReleased(discovery);
    } finally {
      await publisher.close();
      await proxy.close();
    }
  });

  it('after a compaction of the missed revisions, re-reads and emits only the real differences', async () => {
    const namespace = uniqueNamespace('compact');
    const proxy = await startTcpProxy(etcd.members[0]!.clientPort);
    const discovery = etcdDiscovery(namespace, { endpoints: [proxy.endpoint] });
    const publisher = etcdDiscovery(namespace, { endpoints: etcd.endpoints }).publisher();
    try {
      const a = makeWorker();
      const c = makeWorker();
      const d = makeWorker();
      for (const worker of [a, c, d]) await publisher.publish('worker-added', worker);
      const recorder = new Recorder(discovery.events(), discovery.diagnostics);
      await waitFor(() => recorder.events.length === 3, 'A, C and D');
      proxy.cut();
      const b = makeWorker();
      const e = makeWorker();
      await publisher.publish('worker-added', b); // new: added
      await publisher.publish('worker-updated', workerInfo({ ...a, version: '2' })); // changed: updated
      await publisher.publish('worker-dropped', c); // gone: dropped
      await publisher.publish('worker-updated', workerInfo({ ...d, version: '2' }));
      await publisher.publish('worker-updated', d); // changed and back: nothing
      await publisher.publish('worker-added', e);
      await publisher.publish('worker-dropped', e); // came and went: nothing
      const { header } = await raw.getAll().prefix('/').limit(1).exec();
      await raw.kv.compact({ revision: header.revision, physical: true });
      proxy.restore();
      await waitFor(() => recorder.events.length >= 6, 'the differences', 15_000);
      await sleep(200);
      const name = (uid: string): string => (uid === a.uid ? 'A' : uid === b.uid ? 'B' : uid === c.uid ? 'C' : '?');
      assert.deepEqual(
        recorder.events
          .slice(3)
          .map((event) => `${event.type} ${name(event.worker.uid)}@${event.worker.version}`)
          .sort(),
        ['worker-added B@1', 'worker-dropped C@1', 'worker-updated A@2'],
      );
      recorder.assertConsistent();
      assert.ok(
        recorder.diagnostics.some((diagnostic) => /compacted/.test(diagnostic.message)),
        `the compaction was reported: ${recorder.diagnostics.map((diagnostic) => diagnostic.message).join(' | ')}`,
      );
      // And the stream goes on.
      const f = makeWorker();
      await publisher.publish('worker-added', f);
      await waitFor(() => recorder.workers.has(f.uid), 'F after the re-read');
      recorder.unsubscribe();
      assertReleased(discovery);
    } finally {
      await publisher.close();
      await proxy.close();
    }
  });

  it('signals synced once, right after the initial burst; a re-read after compaction catches up without signalling it again', async () => {
    const namespace = uniqueNamespace('synced');
    const proxy = await startTcpProxy(etcd.members[0]!.clientPort);
    const publisher = etcdDiscovery(namespace, { endpoints: etcd.endpoints }).publisher();
    const settings = etcdSettings(namespace, { endpoints: [proxy.endpoint] });
    const connection = new EtcdConnection(settings);
    const diagnostics = new Subject<DiscoveryDiagnostic>();
    const names = new Map<string, string>();
    const log: string[] = [];
    let inFirstTurn = -1;
    // A recording sink: what createDiscovery would hand the subscription.
    const sink: DiscoverySink = {
      next: (event) => {
        log.push(`${event.type} ${names.get(event.worker.uid) ?? '?'}@${event.worker.version}`);
        if (log.length === 1) queueMicrotask(() => (inFirstTurn = log.length));
      },
      synced: () => void log.push('synced'),
      error: (error) => void log.push(`error ${String(error)}`),
      closed: false,
    };
    const subscription = new EtcdWatch(settings, connection, diagnostics, sink);
    try {
      const [a, b, c] = ['A', 'B', 'C'].map((name) => {
        const worker = makeWorker();
        names.set(worker.uid, name);
        return worker;
      }) as [WorkerInfo, WorkerInfo, WorkerInfo];
      await publisher.publish('worker-added', a);
      await publisher.publish('worker-added', b);
      subscription.start();
      await waitFor(() => log.includes('synced'), 'synced');
      assert.deepEqual([...log.slice(0, 2)].sort(), ['worker-added A@1', 'worker-added B@1']);
      assert.equal(log[2], 'synced', 'synced right after the burst');
      assert.equal(inFirstTurn, 3, 'the burst and synced in one synchronous turn');

      proxy.cut();
      await publisher.publish('worker-added', c);
      await publisher.publish('worker-dropped', a);
      const { header } = await raw.getAll().prefix('/').limit(1).exec();
      await raw.kv.compact({ revision: header.revision, physical: true });
      proxy.restore();
      await waitFor(
        () => log.length >= 5,
        () => `the re-read's changes: ${log.join(', ')}`,
        15_000,
      );
      await sleep(200);
      assert.deepEqual(log.slice(3), ['worker-dropped A@1', 'worker-added C@1'], 'drops first, and no second synced');
    } finally {
      subscription.stop();
      await publisher.close();
      await proxy.close();
    }
    assert.equal(connection.users, 0);
    assert.equal(connection.open, false);
  });

  it('snapshots(): nothing while the cluster cannot be reached ("connecting"), then the initial state', async () => {
    const namespace = uniqueNamespace('connecting');
    const proxy = await startTcpProxy(etcd.members[0]!.clientPort);
    const publisher = etcdDiscovery(namespace, { endpoints: etcd.endpoints }).publisher();
    const discovery = etcdDiscovery(namespace, { endpoints: [proxy.endpoint] });
    try {
      const a = makeWorker();
      await publisher.publish('worker-added', a);
      proxy.cut();
      const snapshots: WorkerSnapshot[] = [];
      const subscription = discovery.snapshots().subscribe((snapshot) => snapshots.push(snapshot));
      await sleep(800);
      assert.equal(snapshots.length, 0, 'no snapshot before the first read');
      proxy.restore();
      await waitFor(() => snapshots.length > 0, 'the first snapshot', 15_000);
      assert.deepEqual([...snapshots[0]!.keys()], [a.uid]);
      subscription.unsubscribe();
      const empty = etcdDiscovery(uniqueNamespace('empty'), { endpoints: etcd.endpoints });
      assert.equal((await firstValueFrom(empty.snapshots())).size, 0, 'an empty namespace: an empty first snapshot');
      assertReleased(empty);
      assertReleased(discovery);
    } finally {
      await publisher.close();
      await proxy.close();
    }
  });

  it('waits for an unreachable cluster, reporting warnings, and releases everything on unsubscribe', async () => {
    const proxy = await startTcpProxy(etcd.members[0]!.clientPort);
    proxy.cut();
    const discovery = etcdDiscovery(uniqueNamespace('down'), { endpoints: [proxy.endpoint] });
    const recorder = new Recorder(discovery.events(), discovery.diagnostics);
    await waitFor(() => recorder.diagnostics.length >= 2, 'warnings');
    assert.ok(recorder.diagnostics.every((diagnostic) => diagnostic.kind === 'warning'));
    assert.equal(recorder.error, undefined, 'an unreachable cluster does not end the stream');
    recorder.unsubscribe();
    assertReleased(discovery);
    await proxy.close();
  });

  it('an unsubscribe from inside the initial burst stops the stream at once', async () => {
    const discovery = etcdDiscovery(uniqueNamespace('early'), { endpoints: etcd.endpoints });
    const publisher = discovery.publisher();
    for (let i = 0; i < 5; i++) await publisher.publish('worker-added', makeWorker());
    const seen: DiscoveryEvent[] = [];
    const subscription = discovery.events().subscribe((event) => {
      seen.push(event);
      if (seen.length === 2) subscription.unsubscribe();
    });
    await waitFor(() => seen.length >= 2, 'two events');
    await publisher.publish('worker-added', makeWorker());
    await sleep(100);
    assert.equal(seen.length, 2);
    await publisher.close();
    assertReleased(discovery);
  });
});
