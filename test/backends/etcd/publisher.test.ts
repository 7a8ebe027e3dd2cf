// etcd publisher behaviour against a real single-node etcd: key layout and
// value, one kept-alive lease, revocation on close, recovery from a lost
// lease, atomic updates, ownership (the registrant's lease stays on the key),
// option validation.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import type { Etcd3 } from 'etcd3';
import { EtcdConnection } from '../../../src/backends/etcd/EtcdConnection.js';
import { etcdDiscovery } from '../../../src/backends/etcd/etcdDiscovery.js';
import { etcdSettings } from '../../../src/backends/etcd/etcdSettings.js';
import type { EtcdDiscoveryOptions } from '../../../src/backends/etcd/types.js';
import { decodeWorker } from '../../../src/codec/decodeWorker.js';
import type { Discovery } from '../../../src/discovery/types.js';
import { WorkerNotFoundError } from '../../../src/errors/WorkerNotFoundError.js';
import { sameWorker } from '../../../src/model/sameWorker.js';
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

describe('etcd publisher', { timeout: 60_000 }, () => {
  let etcd: EtcdCluster;
  let raw: Etcd3;

  before(async () => {
    etcd = await startEtcd();
    raw = rawClient(etcd.endpoints);
  });
  after(async () => {
    raw.close();
    await etcd.dispose();
  });

  const key = (namespace: string, uid: string): string => `/woolrx/${namespace}/workers/${uid}`;
  const leaseOf = async (path: string): Promise<string | undefined> => {
    const { kvs } = await raw.get(path).exec();
    return kvs[0]?.lease;
  };

  it('stores each worker at <prefix>/<namespace>/workers/<uid> as protobuf, all on one lease with the ttl', async () => {
    const namespace = uniqueNamespace('layout');
    const discovery = etcdDiscovery(namespace, { endpoints: etcd.endpoints, ttl: 7, prefix: '/tests/pool' });
    const publisher = discovery.publisher();
    const a = makeWorker({ tags: ['gpu'], extra: { zone: 'z' }, secure: true, options: { compression: 'gzip' } });
    const b = makeWorker();
    await publisher.publish('worker-added', a);
    await publisher.publish('worker-added', b);
    const stored = await raw.getAll().prefix(`/tests/pool/${namespace}/`).exec();
    assert.deepEqual(
      stored.kvs.map((kv) => kv.key.toString()).sort(),
      [a.uid, b.uid].map((uid) => `/tests/pool/${namespace}/workers/${uid}`).sort(),
    );
    for (const kv of stored.kvs) {
      const worker = decodeWorker(kv.value);
      assert.ok(sameWorker(worker, worker.uid === a.uid ? a : b), 'the value is the protobuf encoding of the worker');
    }
    const leases = new Set(stored.kvs.map((kv) => kv.lease));
    assert.equal(leases.size, 1, 'one lease for all the workers of a publisher');
    const [lease] = leases;
    assert.ok(lease !== undefined && lease !== '0');
    const live = await raw.leaseClient.leaseTimeToLive({ ID: lease, keys: true });
    assert.equal(live.grantedTTL, '7');
    assert.equal(live.keys.length, 2);

    await publisher.close();
    const gone = await raw.leaseClient.leaseTimeToLive({ ID: lease });
    assert.equal(gone.TTL, '-1', 'close revoked the lease');
    assert.equal(
      (await raw.getAll().prefix(`/tests/pool/${namespace}/`).exec()).kvs.length,
      0,
      'and its keys went with it',
    );
    assertReleased(discovery);
  });

  it('keeps the lease alive past its ttl, and close drops the workers at once', async () => {
    const namespace = uniqueNamespace('alive');
    const discovery = etcdDiscovery(namespace, { endpoints: etcd.endpoints, ttl: 2 });
    const publisher = discovery.publisher();
    const a = makeWorker();
    await publisher.publish('worker-added', a);
    const recorder = new Recorder(discovery.events());
    await sleep(4500); // more than twice the ttl
    assert.ok(await leaseOf(key(namespace, a.uid)), 'the worker is still registered');
    assert.deepEqual(recorder.history(a.uid), ['worker-added@1']);
    const closing = Date.now();
    await publisher.close();
    await waitFor(() => recorder.workers.size === 0, 'the drop');
    assert.ok(Date.now() - closing < 1000, 'dropped on close, not at lease expiry');
    recorder.assertConsistent();
    recorder.unsubscribe();
    assertReleased(discovery);
  });

  it('re-grants a lost lease and restores the workers it registered, not those it only updated', async () => {
    const namespace = uniqueNamespace('lost');
    const discovery = etcdDiscovery(namespace, { endpoints: etcd.endpoints, ttl: 3 });
    const first = discovery.publisher();
    const second = discovery.publisher();
    const a = makeWorker();
    const x = makeWorker();
    const diagnostics: string[] = [];
    const diagnosticsSubscription = discovery.diagnostics.subscribe((d) => diagnostics.push(`${d.kind}: ${d.message}`));
    await first.publish('worker-added', a);
    await second.publish('worker-added', x);
    const x2 = workerInfo({ ...x, version: '2' });
    await first.publish('worker-updated', x2); // X stays the second's
    const recorder = new Recorder(discovery.events());
    await waitFor(() => recorder.workers.size === 2, 'A and X');
    const lost = await leaseOf(key(namespace, a.uid));
    assert.ok(lost);
    assert.notEqual(await leaseOf(key(namespace, x.uid)), lost, "the update left X on its registrant's lease");
    await raw.leaseClient.leaseRevoke({ ID: lost });
    await waitFor(() => recorder.history(a.uid).length === 3, 'A dropped and re-added', 5000);
    assert.deepEqual(recorder.history(a.uid), ['worker-added@1', 'worker-dropped@1', 'worker-added@1']);
    assert.deepEqual(
      recorder.history(x.uid),
      ['worker-added@2'],
      'X, registered by the second publisher, is untouched',
    );
    const renewed = await leaseOf(key(namespace, a.uid));
    assert.ok(renewed && renewed !== lost, 'A is on a new lease');
    assert.ok(
      diagnostics.includes(
        `warning: Lease ${lost} was lost: etcd says it expired or was revoked; granting a new one and restoring 1 worker(s)`,
      ),
      diagnostics.join('\n'),
    );
    assert.ok(
      diagnostics.some((d) => d.startsWith('recovered') && d.includes('Re-published 1 worker(s)')),
      diagnostics.join('\n'),
    );
    // The new lease is kept alive too, and closing the first publisher leaves X alone.
    await first.close();
    await waitFor(() => !recorder.workers.has(a.uid), 'A dropped on close');
    await sleep(100);
    assert.ok(recorder.workers.has(x.uid));
    await second.close();
    await waitFor(() => recorder.workers.size === 0, 'X dropped');
    recorder.assertConsistent();
    recorder.unsubscribe();
    diagnosticsSubscription.unsubscribe();
    assertReleased(discovery);
  });

  it('a lease that expires while etcd cannot be reached is reported once, in one sentence, however long the retries last', async () => {
    const namespace = uniqueNamespace('lost-quiet');
    const proxy = await startTcpProxy(etcd.members[0]!.clientPort);
    const cut = etcdDiscovery(namespace, { endpoints: [proxy.endpoint], ttl: 2, requestTimeout: 500 });
    const publisher = cut.publisher();
    const diagnostics: string[] = [];
    const diagnosticsSubscription = cut.diagnostics.subscribe((d) => diagnostics.push(`${d.kind}: ${d.message}`));
    try {
      const a = makeWorker();
      await publisher.publish('worker-added', a);
      const lost = await leaseOf(key(namespace, a.uid));
      assert.ok(lost);
      proxy.cut();
      await waitFor(
        () => diagnostics.some((d) => d.includes('was lost')),
        () => `the loss: ${diagnostics.join(' | ')}`,
        15_000,
      );
      await sleep(3000); // the recovery retries meanwhile
      proxy.restore();
      await waitFor(
        () => diagnostics.some((d) => d.startsWith('recovered')),
        () => `the recovery: ${diagnostics.join(' | ')}`,
        15_000,
      );
      const losses = diagnostics.filter((d) => d.includes('was lost'));
      assert.deepEqual(losses, [
        `warning: Lease ${lost} was lost: it expired while etcd could not be reached; granting a new one and restoring 1 worker(s)`,
      ]);
      const retries = diagnostics.filter((d) => d.includes('Re-publishing after'));
      assert.ok(retries.length <= 1, `one line for the retries, not one per retry: ${retries.join(' | ')}`);
      assert.doesNotMatch(diagnostics.join('\n'), /Lease We lost|is expired or revoked\)/);
      const renewed = await leaseOf(key(namespace, a.uid));
      assert.ok(renewed !== undefined && renewed !== lost, 'A is back on a new lease');
    } finally {
      diagnosticsSubscription.unsubscribe();
      await publisher.close();
      await proxy.close();
    }
  });

  it('after a lost lease, leaves alone a worker another publisher registered meanwhile', async () => {
    const namespace = uniqueNamespace('lost-other');
    const proxy = await startTcpProxy(etcd.members[0]!.clientPort);
    const cut = etcdDiscovery(namespace, { endpoints: [proxy.endpoint], ttl: 2 });
    const direct = etcdDiscovery(namespace, { endpoints: etcd.endpoints });
    const first = cut.publisher();
    const second = direct.publisher();
    const diagnostics: string[] = [];
    const diagnosticsSubscription = cut.diagnostics.subscribe((d) => diagnostics.push(`${d.kind}: ${d.message}`));
    try {
      const a = makeWorker();
      const b = makeWorker();
      await first.publish('worker-added', a);
      await first.publish('worker-added', b);
      const lost = await leaseOf(key(namespace, a.uid));
      assert.ok(lost);
      proxy.cut();
      await raw.leaseClient.leaseRevoke({ ID: lost }); // A and B go with it
      await second.publish('worker-added', workerInfo({ ...a, version: '2' })); // A registered anew, by the second
      proxy.restore();
      await waitFor(
        () => diagnostics.some((d) => d.startsWith('recovered')),
        () => `the recovery: ${diagnostics.join(' | ')}`,
        15_000,
      );
      assert.ok(
        diagnostics.some((d) => d.startsWith('recovered') && d.includes('Re-published 1 worker(s)')),
        diagnostics.join('\n'),
      );
      const held = await leaseOf(key(namespace, a.uid));
      assert.ok(held !== undefined && held !== lost);
      const restored = await leaseOf(key(namespace, b.uid));
      assert.ok(
        restored !== undefined && restored !== lost && restored !== held,
        "B is back, on the first publisher's new lease",
      );
      await first.close();
      assert.equal(
        await leaseOf(key(namespace, a.uid)),
        held,
        'the first publisher no longer owns A: its close leaves it',
      );
      assert.equal(await leaseOf(key(namespace, b.uid)), undefined, 'and withdraws B');
      await second.close();
      assert.equal(await leaseOf(key(namespace, a.uid)), undefined, 'A goes with its new registrant');
      assertReleased(cut);
      assertReleased(direct);
    } finally {
      diagnosticsSubscription.unsubscribe();
      await first.close();
      await second.close();
      await proxy.close();
    }
  });

  it("ownership: an update or re-add from another publisher keeps the registrant's lease on the key", async () => {
    const namespace = uniqueNamespace('owner');
    const registrant = etcdDiscovery(namespace, { endpoints: etcd.endpoints }).publisher();
    const updaters = etcdDiscovery(namespace, { endpoints: etcd.endpoints });
    const recorder = new Recorder(updaters.events());
    const a = makeWorker();
    await registrant.publish('worker-added', a);
    const lease = await leaseOf(key(namespace, a.uid));
    assert.ok(lease !== undefined && lease !== '0');

    const updater = updaters.publisher();
    await updater.publish('worker-updated', workerInfo({ ...a, version: '2' }));
    assert.equal(await leaseOf(key(namespace, a.uid)), lease, 'an update keeps the lease');
    const readder = updaters.publisher();
    await readder.publish('worker-added', makeWorker()); // it has a lease of its own
    await readder.publish('worker-added', workerInfo({ ...a, version: '3' }));
    assert.equal(await leaseOf(key(namespace, a.uid)), lease, 'a re-add keeps the lease');
    assert.equal(
      decodeWorker((await raw.get(key(namespace, a.uid)).exec()).kvs[0]!.value).version,
      '3',
      'with the new metadata',
    );

    await updater.close();
    await readder.close();
    await sleep(100);
    assert.equal(
      await leaseOf(key(namespace, a.uid)),
      lease,
      'the updaters closed: the key is still there, on its lease',
    );
    assert.deepEqual(recorder.history(a.uid), ['worker-added@1', 'worker-updated@2', 'worker-updated@3']);

    await registrant.close();
    assert.equal(await leaseOf(key(namespace, a.uid)), undefined, 'the registrant closed: the key is gone');
    await waitFor(() => recorder.history(a.uid).length === 4, 'A dropped');
    assert.equal(recorder.history(a.uid)[3], 'worker-dropped@3');
    recorder.assertConsistent();
    recorder.unsubscribe();
    assertReleased(updaters);
  });

  it('ownership: of publishers adding the same absent uid at once, the one whose write created the key is its registrant', async () => {
    const namespace = uniqueNamespace('race');
    const discoveries = Array.from({ length: 4 }, () => etcdDiscovery(namespace, { endpoints: etcd.endpoints }));
    const publishers = discoveries.map((discovery) => discovery.publisher());
    // Every publisher holds a lease of its own before the race: its warm-up worker's.
    const warmUps = publishers.map(() => makeWorker());
    await Promise.all(publishers.map((publisher, i) => publisher.publish('worker-added', warmUps[i]!)));
    const leases = await Promise.all(warmUps.map((worker) => leaseOf(key(namespace, worker.uid))));
    assert.equal(new Set(leases).size, 4, 'four publishers, four leases');
    const contested = Array.from({ length: 8 }, () => makeWorker());
    const creators = new Map<string, number>();
    let overwritten = 0;
    for (const worker of contested) {
      await Promise.all(
        publishers.map((publisher, i) =>
          publisher.publish('worker-added', workerInfo({ ...worker, version: String(i) })),
        ),
      );
      const [now] = (await raw.get(key(namespace, worker.uid)).exec()).kvs;
      assert.ok(now);
      const [created] = (await raw.get(key(namespace, worker.uid)).revision(now.create_revision).exec()).kvs;
      assert.ok(created);
      const creator = Number(decodeWorker(created.value).version);
      creators.set(worker.uid, creator);
      if (decodeWorker(now.value).version !== String(creator)) overwritten++;
      assert.equal(
        now.lease,
        leases[creator],
        `worker ${worker.uid} is on the lease of publisher ${creator}, whose write created it`,
      );
    }
    assert.ok(overwritten > 0, "later adds refreshed the metadata (the value is not the creator's)");
    // Each contested key goes exactly when its registrant closes.
    for (const [i, publisher] of publishers.entries()) {
      await publisher.close();
      for (const worker of contested) {
        const present = (await leaseOf(key(namespace, worker.uid))) !== undefined;
        assert.equal(
          present,
          (creators.get(worker.uid) as number) > i,
          `worker ${worker.uid} after publisher ${i} closed`,
        );
      }
    }
    for (const discovery of discoveries) assertReleased(discovery);
  });

  it('worker-updated is atomic: a worker deleted behind its back is not resurrected', async () => {
    const namespace = uniqueNamespace('atomic');
    const discovery = etcdDiscovery(namespace, { endpoints: etcd.endpoints });
    const publisher = discovery.publisher();
    const a = makeWorker();
    await publisher.publish('worker-added', a);
    await raw.delete().key(key(namespace, a.uid));
    await assert.rejects(publisher.publish('worker-updated', workerInfo({ ...a, version: '2' })), WorkerNotFoundError);
    assert.equal(await leaseOf(key(namespace, a.uid)), undefined);
    await publisher.close();
    assertReleased(discovery);
  });

  it('applies publishes in call order, even when not awaited one by one', async () => {
    const namespace = uniqueNamespace('order');
    const discovery = etcdDiscovery(namespace, { endpoints: etcd.endpoints });
    const recorder = new Recorder(discovery.events());
    const publisher = discovery.publisher();
    const a = makeWorker();
    await Promise.all([
      publisher.publish('worker-added', a),
      publisher.publish('worker-updated', workerInfo({ ...a, version: '2' })),
      publisher.publish('worker-updated', workerInfo({ ...a, version: '3' })),
      publisher.publish('worker-dropped', a),
      publisher.publish('worker-added', workerInfo({ ...a, version: '4' })),
    ]);
    await waitFor(() => recorder.events.length === 5, 'five events');
    assert.deepEqual(recorder.history(a.uid), [
      'worker-added@1',
      'worker-updated@2',
      'worker-updated@3',
      'worker-dropped@3',
      'worker-added@4',
    ]);
    recorder.assertConsistent();
    recorder.unsubscribe();
    await publisher.close();
    assertReleased(discovery);
  });

  it('rejects a publish when etcd cannot be reached, and still closes', async () => {
    const proxy = await startTcpProxy(etcd.members[0]!.clientPort);
    proxy.cut();
    const discovery = etcdDiscovery(uniqueNamespace('down'), { endpoints: [proxy.endpoint], requestTimeout: 1000 });
    const publisher = discovery.publisher();
    await assert.rejects(publisher.publish('worker-added', makeWorker()), Error);
    await publisher.close();
    assert.equal(publisher.closed, true);
    assertReleased(discovery);
    await proxy.close();
  });

  it('rejects bad options with a TypeError naming the value', () => {
    const bad: [unknown, RegExp][] = [
      [
        { endpoints: 'localhost' },
        /^etcdDiscovery: option endpoints must be URLs like http:\/\/127\.0\.0\.1:2379 .*, or host:port, got "localhost"$/,
      ],
      [{ endpoints: 'localhost:0' }, /^etcdDiscovery: option endpoints must be URLs like .*, got "localhost:0"$/],
      [{ endpoints: '::1:2379' }, /^etcdDiscovery: option endpoints must be URLs like .*, got "::1:2379"$/],
      [
        { endpoints: ['127.0.0.1:2379', 'https://b:2'] },
        /^etcdDiscovery: option endpoints must be URLs of one scheme /,
      ],
      [{ endpoints: [] }, /^etcdDiscovery: option endpoints must be at least one URL, got \[\]$/],
      [
        { endpoints: ['http://a:1', 'https://b:2'] },
        /^etcdDiscovery: option endpoints must be URLs of one scheme .*, got \["http:\/\/a:1","https:\/\/b:2"\]$/,
      ],
      [{ ttl: 0 }, /^etcdDiscovery: option ttl must be an integer from 1 to 2000000, got 0$/],
      [{ ttl: 1.5 }, /^etcdDiscovery: option ttl must be an integer from 1 to 2000000, got 1\.5$/],
      [
        { prefix: '/woolrx/' },
        /^etcdDiscovery: option prefix must be a string not ending with "\/", got "\/woolrx\/"$/,
      ],
      [
        { tls: { ca: 'x' } },
        /^etcdDiscovery: option tls must be absent with http:\/\/ endpoints \(use https:\/\/ endpoints for TLS\), got \{"ca":"x"\}$/,
      ],
      [
        { endpoints: 'https://a:1', tls: false },
        /^etcdDiscovery: option tls must be not false with https:\/\/ endpoints, got false$/,
      ],
      [
        { endpoints: 'https://a:1', tls: { cert: 'c' } },
        /^etcdDiscovery: option tls must be cert and key together, or neither, got \{"cert":"c"\}$/,
      ],
      [
        { endpoints: 'https://a:1', tls: { ca: 42 } },
        /^etcdDiscovery: option tls\.ca must be PEM text or bytes, got 42$/,
      ],
      [
        { auth: { username: '', password: 'p' } },
        /^etcdDiscovery: option auth\.username must be a non-empty string, got ""$/,
      ],
      [
        { auth: { username: 'u', password: 12345 } },
        /^etcdDiscovery: option auth\.password must be a string, got "\(hidden\)"$/,
      ],
      [
        { requestTimeout: -1 },
        /^etcdDiscovery: option requestTimeout must be an integer from 1 to 2147483647, got -1$/,
      ],
      [
        { ttl: 5, lease: 3 },
        /^etcdDiscovery: unknown option "lease" \(known: endpoints, ttl, prefix, tls, auth, requestTimeout\)$/,
      ],
      [{ endpoint: 'http://127.0.0.1:2379', timeout: 1 }, /^etcdDiscovery: unknown options "endpoint", "timeout" /],
      [null, /^etcdDiscovery: options must be an object, got null$/],
    ];
    for (const [options, message] of bad) {
      assert.throws(
        () => etcdDiscovery('default', options as never),
        (error: unknown) => {
          assert.ok(error instanceof TypeError, `TypeError for ${JSON.stringify(options)}`);
          assert.match(error.message, message);
          assert.doesNotMatch(error.message, /12345/, 'a password never appears in a message');
          return true;
        },
      );
    }
    const badNamespaces: [unknown, RegExp][] = [
      ['a/b', /^etcdDiscovery: namespace must be a non-empty string without "\/", "\.\." or NUL, got "a\/b"$/],
      ['', /^etcdDiscovery: namespace must be .*, got ""$/],
    ];
    for (const [namespace, message] of badNamespaces) {
      assert.throws(
        () => etcdDiscovery(namespace as never),
        (error: unknown) => {
          assert.ok(error instanceof TypeError, `TypeError for ${JSON.stringify(namespace)}`);
          assert.match(error.message, message);
          return true;
        },
      );
    }
    const discovery = etcdDiscovery(undefined, { endpoints: 'http://127.0.0.1:1, http://127.0.0.1:2' });
    assert.equal(discovery.namespace, 'default');
  });

  it('takes endpoints written host:port, as etcdctl does: http://, or https:// when tls is given', () => {
    const cases: [EtcdDiscoveryOptions, string[]][] = [
      [{ endpoints: '127.0.0.1:2379' }, ['http://127.0.0.1:2379']],
      [{ endpoints: '[::1]:2379' }, ['http://[::1]:2379']],
      [{ endpoints: 'etcd-0.etcd:2379, etcd-1.etcd:2379' }, ['http://etcd-0.etcd:2379', 'http://etcd-1.etcd:2379']],
      [{ endpoints: ['127.0.0.1:2379', 'http://127.0.0.1:2380'] }, ['http://127.0.0.1:2379', 'http://127.0.0.1:2380']],
      [{ endpoints: 'etcd.example:2379', tls: true }, ['https://etcd.example:2379']],
      [
        { endpoints: ['[::1]:2379', 'https://[::1]:2380'], tls: { ca: 'PEM' } },
        ['https://[::1]:2379', 'https://[::1]:2380'],
      ],
    ];
    for (const [options, endpoints] of cases) {
      assert.deepEqual(etcdSettings('default', options).endpoints, endpoints, JSON.stringify(options));
    }
  });
});
