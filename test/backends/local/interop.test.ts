// Interop with wool's format, through test/interop/woolpeer.py: an
// independent stdlib-only Python peer (flock, mmap, notify touch) written
// from the wire description, not from woolrx.
import { killWoolPeers, startWoolPeer, withdrawWoolPeer, WOOLPEER } from '../../interop/woolPeerProcess.js';
import assert from 'node:assert/strict';
import { execFileSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { closeSync, existsSync, openSync, readSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { localDiscovery, shortHash } from '../../../src/backends/local/index.js';
import type { WorkerInfo } from '../../../src/model/types.js';
import { workerInfo } from '../../../src/model/workerInfo.js';
import { assertClean, Child, killChildren, makeWorker, Recorder, TMP, uniqueNamespace, waitFor, strayTestFiles } from './helpers.js';

const used: { namespace: string; uids: string[] }[] = [];

after(async () => {
  killWoolPeers();
  await killChildren();
  for (const { namespace, uids } of used) {
    // wool's flock file is wool's to leave behind (it never removes it); woolrx never creates it.
    rmSync(join(TMP, `wool-lock-${shortHash(namespace)}`), { force: true });
    await assertClean(namespace, uids);
  }
  assert.deepEqual(strayTestFiles(), [], 'nothing of these tests left in /dev/shm or the temp directory');
});

function woolArgs(namespace: string, worker: WorkerInfo): string[] {
  const args = ['publish', '--namespace', namespace, '--uid', worker.uid, '--address', worker.address, '--pid', String(worker.pid), '--version', worker.version];
  for (const tag of worker.tags) args.push('--tag', tag);
  for (const [key, value] of Object.entries(worker.extra)) args.push('--extra', `${key}=${value}`);
  if (worker.secure) args.push('--secure');
  args.push('--option', `max_receive_message_length=${worker.options.maxReceiveMessageLength}`);
  args.push('--option', `keepalive_time_ms=${worker.options.keepaliveTimeMs}`);
  return args;
}

/** Starts a wool peer publishing `worker`; resolves once it printed "ready". Closing its stdin withdraws it. */
async function woolPublish(namespace: string, worker: WorkerInfo, extra: string[] = []): Promise<ChildProcessWithoutNullStreams> {
  return startWoolPeer([...woolArgs(namespace, worker), ...extra]);
}


describe('local backend ↔ wool format (woolpeer.py)', () => {
  it('a woolrx subscriber sees a wool publisher\'s worker with every field, its in-place refresh, and its withdrawal', async () => {
    const namespace = uniqueNamespace('woolpub');
    const worker = makeWorker({
      tags: ['gpu', 'big'],
      extra: { zone: 'eu-1', rack: '7' },
      secure: true,
      options: { maxReceiveMessageLength: 1024, keepaliveTimeMs: 5000 },
    });
    used.push({ namespace, uids: [worker.uid] });
    // No poll: the wool peer's notify touch alone must drive the woolrx subscriber.
    const discovery = localDiscovery(namespace, { pollInterval: false });
    const recorder = new Recorder(discovery.events(), discovery.diagnostics);
    const owner = await woolPublish(namespace, worker, ['--unlink-segment-on-exit']);
    await waitFor(() => recorder.workers.has(worker.uid), 'wool worker seen');
    assert.deepEqual(recorder.workers.get(worker.uid), worker);
    // A second wool process re-adds it with a new address: refreshed in place through mmap.
    const moved = workerInfo({ ...worker, address: '127.0.0.1:6001' });
    const refresher = await woolPublish(namespace, moved);
    await waitFor(() => recorder.of('worker-updated', worker.uid).length === 1, 'in-place refresh seen');
    assert.deepEqual(recorder.workers.get(worker.uid), moved);
    await withdrawWoolPeer(refresher);
    await waitFor(() => recorder.of('worker-dropped', worker.uid).length === 1, 'withdrawal seen');
    assert.deepEqual(recorder.diagnostics.filter((d) => d.kind === 'malformed-record'), []);
    await withdrawWoolPeer(owner);
    recorder.stop();
  });

  it('a wool scanner sees a woolrx publisher\'s workers with every field', async () => {
    const namespace = uniqueNamespace('woolscan');
    const a = makeWorker({ tags: ['gpu'], extra: { zone: 'eu-1', rack: '7' }, secure: true, options: { compression: 'gzip', maxConcurrentStreams: 7 } });
    const b = makeWorker({ address: '[::1]:9000', version: 'ü-2' });
    used.push({ namespace, uids: [a.uid, b.uid] });
    const publisher = localDiscovery(namespace, { pollInterval: false }).publisher();
    await publisher.publish('worker-added', a);
    await publisher.publish('worker-added', b);
    const scanned = execFileSync('python3', [WOOLPEER, 'scan', '--namespace', namespace], { encoding: 'utf8' })
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as WorkerInfo);
    assert.deepEqual(scanned, [a, b].map((w) => JSON.parse(JSON.stringify(w)) as WorkerInfo));
    await publisher.close();
    assert.equal(execFileSync('python3', [WOOLPEER, 'scan', '--namespace', namespace], { encoding: 'utf8' }), '');
  });

  it('woolrx and wool publishers share one namespace; woolrx never unlinks a segment wool created', async () => {
    const namespace = uniqueNamespace('mixed');
    const wool = makeWorker();
    const rx = makeWorker();
    used.push({ namespace, uids: [wool.uid, rx.uid] });
    const owner = await woolPublish(namespace, wool, ['--unlink-segment-on-exit']);
    const discovery = localDiscovery(namespace, { pollInterval: false });
    const recorder = new Recorder(discovery.events());
    assert.ok(recorder.workers.has(wool.uid), 'initial burst includes the wool worker');
    const publisher = discovery.publisher();
    await publisher.publish('worker-added', rx);
    await waitFor(() => recorder.workers.has(rx.uid), 'woolrx worker');
    await publisher.close();
    await waitFor(() => !recorder.workers.has(rx.uid), 'woolrx worker withdrawn');
    // Still wool's segment, still holding wool's worker.
    const scanned = execFileSync('python3', [WOOLPEER, 'scan', '--namespace', namespace], { encoding: 'utf8' });
    assert.match(scanned, new RegExp(wool.uid));
    await withdrawWoolPeer(owner);
    await waitFor(() => !recorder.workers.has(wool.uid), 'wool worker withdrawn');
    recorder.stop(); // last one out: removes the notification directory
  });

  it('tells wool\'s notifications from woolrx\'s when they queue up together (no poll): a wool change in a woolrx burst is seen', async () => {
    const namespace = uniqueNamespace('woolburst');
    const wool = makeWorker();
    const ours = Array.from({ length: 100 }, () => makeWorker());
    used.push({ namespace, uids: [wool.uid, ...ours.map((w) => w.uid)] });
    const owner = await woolPublish(namespace, wool, ['--capacity', '128', '--unlink-segment-on-exit']);
    // No poll: notifications alone must drive the subscriber.
    const discovery = localDiscovery(namespace, { pollInterval: false });
    const recorder = new Recorder(discovery.events(), discovery.diagnostics);
    assert.ok(recorder.workers.has(wool.uid));
    const publisher = new Child('publisher.ts', [namespace, JSON.stringify({ pollInterval: false })]);
    await waitFor(() => publisher.messages.length > 0, 'publisher child ready');
    const burst = publisher.call({ op: 'run', workers: ours.map((worker) => ({ type: 'worker-added', worker })) });
    // Keep this event loop (the subscriber's) blocked while the 100 woolrx
    // notifications queue up in inotify, then a wool process refreshes and
    // withdraws its worker (two touches): inotify would merge identical
    // queued events, and a subscriber that took them all for woolrx's would
    // never look at the segment.
    const journalPath = join('/dev/shm', `woolrx-lock-${shortHash(namespace)}`, 'journal');
    const head = Buffer.alloc(8);
    const sleeper = new Int32Array(new SharedArrayBuffer(4));
    const deadline = Date.now() + 20_000;
    const journaled = (): bigint => {
      if (!existsSync(journalPath)) return -1n;
      const fd = openSync(journalPath, 'r');
      try {
        return readSync(fd, head, 0, 8, 16) === 8 ? head.readBigUInt64LE(0) : -1n;
      } finally {
        closeSync(fd);
      }
    };
    while (journaled() < BigInt(ours.length)) {
      assert.ok(Date.now() < deadline, 'the woolrx burst was not journaled in time');
      Atomics.wait(sleeper, 0, 0, 5);
    }
    execFileSync('python3', [WOOLPEER, ...woolArgs(namespace, workerInfo({ ...wool, version: '2' }))], { input: '' });
    await burst;
    await waitFor(() => recorder.of('worker-dropped', wool.uid).length === 1, 'the wool withdrawal');
    await waitFor(() => ours.every((w) => recorder.workers.has(w.uid)), 'the woolrx burst');
    assert.equal(recorder.events.filter((e) => e.type === 'worker-added').length, ours.length + 1);
    assert.deepEqual(recorder.events.filter((e) => e.type === 'worker-updated'), []);
    await publisher.call({ op: 'exit' });
    await withdrawWoolPeer(owner);
    recorder.stop();
  });
});
