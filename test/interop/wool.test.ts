// Interop with wool's same-host format, against an independent Python peer
// (test/interop/woolpeer.py): wool itself cannot be installed here (PyPI is
// unreachable), so the peer implements the format from wool's description,
// with the Python standard library only, and checks itself against wool's
// golden vectors.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ReplaySubject, filter, firstValueFrom, timeout } from 'rxjs';
import type { Subscription } from 'rxjs';
import { localDiscovery } from '../../src/backends/local/index.js';
import type { DiscoveryEvent, DiscoveryEventType } from '../../src/events/types.js';
import { workerInfo } from '../../src/model/workerInfo.js';
import type { WorkerInfo } from '../../src/model/types.js';
import { python, shortHash, sweep, uniqueNamespace, woolPeer } from '../cli/children.js';

const vectorsPath = fileURLToPath(new URL('../fixtures/wool-vectors.json', import.meta.url));

const used: { namespace: string; uids: string[] }[] = [];
function namespace(label: string, ...uids: string[]): string {
  const ns = uniqueNamespace(`interop-${label}`);
  used.push({ namespace: ns, uids });
  return ns;
}

/** wool's lock file (flock'd by the peer) stays behind, as wool leaves it; remove it. */
function removeWoolLock(ns: string): void {
  rmSync(join(realpathSync(tmpdir()), `wool-lock-${shortHash(ns)}`), { force: true });
}

after(() => {
  const left: string[] = [];
  for (const { namespace: ns, uids } of used) {
    removeWoolLock(ns);
    left.push(...sweep(ns, uids));
  }
  assert.deepEqual(left, [], 'objects, locks or notification files left behind');
});

/** The peer's `publish` flags for a worker. */
function peerArgs(ns: string, worker: WorkerInfo): string[] {
  const o = worker.options;
  return [
    'publish', '--namespace', ns, '--uid', worker.uid, '--address', worker.address, '--pid', String(worker.pid),
    '--version', worker.version,
    ...worker.tags.flatMap((tag) => ['--tag', tag]),
    ...Object.entries(worker.extra).flatMap(([k, v]) => ['--extra', `${k}=${v}`]),
    ...(worker.secure ? ['--secure'] : []),
    '--option', `max_receive_message_length=${o.maxReceiveMessageLength}`,
    '--option', `max_send_message_length=${o.maxSendMessageLength}`,
    '--option', `keepalive_time_ms=${o.keepaliveTimeMs}`,
    '--option', `keepalive_timeout_ms=${o.keepaliveTimeoutMs}`,
    '--option', `keepalive_permit_without_calls=${o.keepalivePermitWithoutCalls}`,
    '--option', `max_pings_without_data=${o.maxPingsWithoutData}`,
    '--option', `max_concurrent_streams=${o.maxConcurrentStreams}`,
    '--option', `compression=${['none', 'deflate', 'gzip'].indexOf(o.compression)}`,
  ];
}

/** `woolpeer scan`: the workers the peer reads from the segment. */
function peerScan(ns: string): WorkerInfo[] {
  const result = spawnSync('python3', [woolPeer, 'scan', '--namespace', ns], { encoding: 'utf8' });
  assert.equal(result.status, 0, result.stderr);
  assert.equal(result.stderr, '');
  return result.stdout
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as WorkerInfo);
}

/** Records a subscription's events; `next(type, uid)` waits for one. */
function record(ns: string) {
  const events = new ReplaySubject<DiscoveryEvent>();
  const discovery = localDiscovery(ns, { pollInterval: 200 });
  const diagnostics: string[] = [];
  const subscriptions: Subscription[] = [
    discovery.diagnostics.subscribe((d) => diagnostics.push(`${d.kind}: ${d.message}`)),
    discovery.events().subscribe(events),
  ];
  return {
    discovery,
    diagnostics,
    next: (type: DiscoveryEventType, uid: string) =>
      firstValueFrom(
        events.pipe(
          filter((e) => e.type === type && e.worker.uid === uid),
          timeout(15_000),
        ),
      ),
    all: () => {
      const seen: DiscoveryEvent[] = [];
      events.subscribe((e) => seen.push(e)).unsubscribe();
      return seen;
    },
    stop: () => {
      for (const s of subscriptions) s.unsubscribe();
    },
  };
}

// Every field away from its default, unicode and map entries included. The
// uids are random: block names depend on the uid only, not on the namespace,
// so fixed uids would collide with other test files running at the same time.
const fromPython = workerInfo({
  uid: randomUUID(),
  address: '[::1]:9000',
  pid: process.pid, // alive for the whole test: the local backend drops workers of dead pids
  version: 'ü-2',
  tags: ['gpu', 'fp16', 'zß'],
  extra: { zone: 'eu-1', rack: '7', 'naïve key': 'va=lue', empty: '' },
  secure: true,
  options: {
    maxReceiveMessageLength: 1024,
    maxSendMessageLength: 2_147_483_647,
    keepaliveTimeMs: 5000,
    keepaliveTimeoutMs: 1,
    keepalivePermitWithoutCalls: false,
    maxPingsWithoutData: 0,
    maxConcurrentStreams: 7,
    compression: 'gzip',
  },
});
const fromWoolrx = workerInfo({
  uid: randomUUID(),
  address: 'unix:/run/wool worker.sock',
  pid: process.pid,
  version: '0.13.1',
  tags: ['cpu'],
  extra: { 'ключ': 'значение', 'a=b': 'c' },
  secure: false,
  options: { compression: 'deflate', maxConcurrentStreams: 2_000_000_000, keepaliveTimeMs: -1 },
});

function plain(worker: WorkerInfo): unknown {
  return JSON.parse(JSON.stringify(worker));
}

describe('interop with wool (Python peer)', () => {
  it("the peer's format code passes wool's golden vectors", () => {
    const result = spawnSync('python3', [woolPeer, 'selftest', '--vectors', vectorsPath], { encoding: 'utf8' });
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stdout, /^ok \d+ checks\n$/);
  });

  it('a worker the peer publishes reaches localDiscovery().events() with every field, then leaves', async () => {
    const ns = namespace('py-to-rx', fromPython.uid);
    const subscriber = record(ns); // before the namespace exists: it waits for it
    const peer = python([...peerArgs(ns, fromPython), '--unlink-segment-on-exit']);
    assert.equal(await peer.line(), 'ready');
    const added = await subscriber.next('worker-added', fromPython.uid);
    assert.deepEqual(plain(added.worker), plain(fromPython));
    peer.process.stdin.end(); // the peer withdraws its worker on EOF
    assert.deepEqual(await peer.exited, { code: 0, signal: null });
    assert.equal(peer.stderr, '');
    const dropped = await subscriber.next('worker-dropped', fromPython.uid);
    assert.deepEqual(plain(dropped.worker), plain(fromPython));
    subscriber.stop();
    assert.deepEqual(
      subscriber.all().map((e) => e.type),
      ['worker-added', 'worker-dropped'],
      'no spurious update',
    );
    assert.deepEqual(subscriber.diagnostics, []);
  });

  it('a worker localDiscovery publishes is read by the peer with every field, and is gone after close()', async () => {
    const ns = namespace('rx-to-py', fromWoolrx.uid);
    const publisher = localDiscovery(ns).publisher();
    try {
      await publisher.publish('worker-added', fromWoolrx);
      assert.deepEqual(peerScan(ns).map(plain), [plain(fromWoolrx)]);
      const updated = workerInfo({ ...fromWoolrx, version: '0.13.2', tags: [] });
      await publisher.publish('worker-updated', updated);
      assert.deepEqual(peerScan(ns).map(plain), [plain(updated)]);
    } finally {
      await publisher.close();
    }
    assert.deepEqual(peerScan(ns), []);
  });

  it('both publish into one namespace: each side sees both workers; each withdraws only its own', async () => {
    const ns = namespace('mixed', fromPython.uid, fromWoolrx.uid);
    const peer = python([...peerArgs(ns, fromPython), '--capacity', '4', '--unlink-segment-on-exit']);
    assert.equal(await peer.line(), 'ready'); // the peer creates the segment (capacity 4)
    const subscriber = record(ns);
    const publisher = localDiscovery(ns).publisher();
    try {
      await publisher.publish('worker-added', fromWoolrx); // into the peer's segment
      const scanned = peerScan(ns);
      assert.deepEqual(
        scanned.map(plain).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
        [plain(fromPython), plain(fromWoolrx)].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
      );
      assert.deepEqual(plain((await subscriber.next('worker-added', fromPython.uid)).worker), plain(fromPython));
      assert.deepEqual(plain((await subscriber.next('worker-added', fromWoolrx.uid)).worker), plain(fromWoolrx));
    } finally {
      await publisher.close();
    }
    await subscriber.next('worker-dropped', fromWoolrx.uid);
    assert.deepEqual(peerScan(ns).map(plain), [plain(fromPython)], "woolrx's close() left the peer's worker alone");
    peer.process.stdin.end();
    assert.deepEqual(await peer.exited, { code: 0, signal: null });
    await subscriber.next('worker-dropped', fromPython.uid);
    subscriber.stop();
    assert.deepEqual(subscriber.diagnostics, []);
    assert.equal(peer.stderr, '');
  });
});
