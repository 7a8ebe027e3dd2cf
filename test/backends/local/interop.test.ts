// The local backend's notification handling with the real wool
// (../shared/wool-peer, through test/interop/woolPeerProcess.ts and
// realwool_peer.py): wool's touches of the notification file queued up among
// woolrx's. The rest of the same-host interop with the real wool is in
// test/interop/realWoolLocal.test.ts.
import { killWoolPeers, startWoolPeer, withdrawWoolPeer } from '../../interop/woolPeerProcess.js';
import { REALWOOL_PEER, WOOL_PYTHON } from '../../interop/realWool.js';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, openSync, readSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { localDiscovery, shortHash } from '../../../src/backends/local/index.js';
import { workerInfo } from '../../../src/model/workerInfo.js';
import {
  assertClean,
  Child,
  killChildren,
  makeWorker,
  Recorder,
  TMP,
  uniqueNamespace,
  waitFor,
  strayTestFiles,
} from './helpers.js';

const used: { namespace: string; uids: string[] }[] = [];

after(async () => {
  killWoolPeers();
  await killChildren();
  for (const { namespace, uids } of used) {
    // wool's flock file and notification directory are wool's to leave behind (it never removes them).
    rmSync(join(TMP, `wool-lock-${shortHash(namespace)}`), { force: true });
    rmSync(join(TMP, `wool-${namespace}`), { recursive: true, force: true });
    await assertClean(namespace, uids);
  }
  assert.deepEqual(strayTestFiles(), [], 'nothing of these tests left in /dev/shm or the temp directory');
});

describe('local backend ↔ the real wool: notifications', () => {
  it("tells wool's notifications from woolrx's when they queue up together (no poll): a wool change in a woolrx burst is seen", async () => {
    const namespace = uniqueNamespace('woolburst');
    const wool = makeWorker();
    const ours = Array.from({ length: 100 }, () => makeWorker());
    used.push({ namespace, uids: [wool.uid, ...ours.map((w) => w.uid)] });
    const owner = await startWoolPeer(namespace, wool, { capacity: 128 }); // creates the segment
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
    // A second wool process, run to its end while this event loop stays blocked:
    // it refreshes the worker in place, then drops it (two touches).
    const lines = [
      { op: 'publish', seq: 1, type: 'worker-added', worker: workerInfo({ ...wool, version: '2' }) },
      { op: 'publish', seq: 2, type: 'worker-dropped', worker: wool },
      { op: 'exit', seq: 3 },
    ].map((command) => `${JSON.stringify(command)}\n`);
    const second = spawnSync(WOOL_PYTHON, [REALWOOL_PEER, 'local', namespace], {
      input: lines.join(''),
      encoding: 'utf8',
      timeout: 30_000,
    });
    assert.equal(second.status, 0, second.stderr);
    assert.equal(second.stdout.split('\n').filter((line) => line.includes('"error"')).length, 0, second.stdout);
    await burst;
    await waitFor(() => recorder.of('worker-dropped', wool.uid).length === 1, 'the wool withdrawal');
    await waitFor(() => ours.every((w) => recorder.workers.has(w.uid)), 'the woolrx burst');
    assert.equal(recorder.events.filter((e) => e.type === 'worker-added').length, ours.length + 1);
    assert.deepEqual(
      recorder.events.filter((e) => e.type === 'worker-updated'),
      [],
    );
    await publisher.call({ op: 'exit' });
    await withdrawWoolPeer(owner);
    recorder.stop();
  });
});
