// woolrx and wool publishers exclude each other: woolrx also takes wool's
// flock(2) on <realpath(tmpdir)>/wool-lock-<short_hash(ns)>. The wool side is
// the real wool (../shared/wool-peer, through test/interop/realWool.ts): its
// own lock (portalocker's flock), publisher and segment reader, each in its
// own process.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readlinkSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { LockTimeoutError, localDiscovery, shortHash } from '../../../src/backends/local/index.js';
import { FileLock } from '../../../src/backends/local/lock/FileLock.js';
import { localNames } from '../../../src/backends/local/names/localNames.js';
import { killRealWool, RealWool, woolScan, woolTryLock } from '../../interop/realWool.js';
import {
  assertClean,
  Child,
  isLockTimeout,
  killChildren,
  makeWorker,
  Recorder,
  TMP,
  uniqueNamespace,
  waitFor,
  strayTestFiles,
} from './helpers.js';

const used: { namespace: string; uids: string[]; woolLeftLock?: boolean }[] = [];
/** Stopped in `after` too, so that a failing test cannot keep the process alive. */
const recorders: Recorder[] = [];

function woolLockPath(namespace: string): string {
  return join(TMP, `wool-lock-${shortHash(namespace)}`);
}

after(async () => {
  for (const recorder of recorders) recorder.stop();
  killRealWool();
  await killChildren();
  for (const { namespace, uids, woolLeftLock } of used) {
    // Only where a wool process was the last to use it: wool never removes its lock file.
    if (woolLeftLock === true) rmSync(woolLockPath(namespace), { force: true });
    await assertClean(namespace, uids);
  }
  assert.deepEqual(strayTestFiles(), [], 'nothing of these tests left in /dev/shm or the temp directory');
});

/** A wool process, started to take its lock or publish (entering wool's LocalDiscovery only when it publishes). */
async function woolProcess(namespace: string, capacity?: number): Promise<RealWool> {
  return RealWool.start('local', namespace, {
    lazy: capacity === undefined,
    ...(capacity === undefined ? {} : { capacity }),
  });
}

function woolScanUids(namespace: string): string[] {
  return woolScan(namespace).map((worker) => worker.uid);
}

describe("local namespace lock ↔ wool's flock (the real wool)", () => {
  it('a woolrx publish waits for a wool process holding the flock, without blocking the event loop; LockTimeoutError names namespace and timeout', async () => {
    const namespace = uniqueNamespace('woolflock');
    const w = makeWorker();
    used.push({ namespace, uids: [w.uid] });
    const holder = await woolProcess(namespace);
    await holder.holdLock();
    const publisher = localDiscovery(namespace, { lockTimeout: 300, pollInterval: false }).publisher();
    let ticks = 0;
    const ticker = setInterval(() => (ticks += 1), 5);
    const started = performance.now();
    try {
      await assert.rejects(publisher.publish('worker-added', w), isLockTimeout(namespace, 300));
    } finally {
      clearInterval(ticker);
    }
    const waited = performance.now() - started;
    assert.ok(waited >= 290 && waited < 3_000, `waited ${waited} ms`);
    assert.ok(ticks >= 20, `the event loop ran while waiting (${ticks} ticks of 5 ms in ${waited} ms)`);
    assert.equal(existsSync(join('/dev/shm', shortHash(namespace))), false, 'nothing written without the flock');
    // woolrx's own lock was released with the failure: another woolrx process is not kept out.
    const names = localNames(namespace, TMP);
    const rxLock = new FileLock(names.rxLockPath, names.lockDirPath);
    assert.ok(rxLock.tryLock(), "woolrx's lock is free");
    rxLock.close();

    // Released by wool: the same publisher proceeds.
    await holder.exit();
    await publisher.publish('worker-added', w);
    assert.deepEqual(woolScanUids(namespace), [w.uid]);
    await publisher.close();
    // Last one out, holding the flock, removed wool's lock file too (assertClean checks it).
  });

  it("a wool process cannot take the flock while a woolrx process holds the namespace lock; wool's publish waits for it", async () => {
    const namespace = uniqueNamespace('woolwaits');
    const w = makeWorker();
    const rx = makeWorker();
    used.push({ namespace, uids: [w.uid, rx.uid] });
    assert.equal(woolTryLock(namespace), 'free');
    const recorder = new Recorder(localDiscovery(namespace, { pollInterval: 200 }).events());
    recorders.push(recorder);
    const holder = new Child('lockHolder.ts', [namespace]); // acquireNamespaceLock, held until told
    await waitFor(() => holder.messages.some((m) => (m as { locked?: boolean }).locked), 'woolrx lock holder ready');
    assert.equal(woolTryLock(namespace), 'busy', "wool's non-blocking flock fails while woolrx holds the lock");
    // A wool publisher (blocking flock, as wool does) is held off until woolrx releases.
    const woolPublisher = await woolProcess(namespace);
    let published = false;
    const publishing = woolPublisher.publish('worker-added', w, 20_000).then(() => (published = true));
    await new Promise((resolve) => setTimeout(resolve, 400));
    assert.equal(published, false, 'wool published while woolrx held the lock');
    const released = performance.now();
    await holder.call({ op: 'release' });
    await holder.exited;
    await publishing;
    assert.ok(performance.now() - released < 5_000);
    assert.equal(woolTryLock(namespace), 'free');
    // Both kinds of publisher in one namespace after that.
    const publisher = localDiscovery(namespace, { pollInterval: false }).publisher();
    await publisher.publish('worker-added', rx);
    assert.deepEqual(new Set(woolScanUids(namespace)), new Set([w.uid, rx.uid]));
    await waitFor(() => recorder.workers.size === 2, 'both workers seen');
    await publisher.close();
    await woolPublisher.publish('worker-dropped', w);
    await woolPublisher.exit(); // wool created the segment: it unlinks it
    await waitFor(() => recorder.workers.size === 0, 'both withdrawn');
    recorder.stop(); // last one out: the namespace is gone, so it also removes wool's lock file
    assert.equal(existsSync(woolLockPath(namespace)), false);
  });

  it('a wool process and a woolrx process adding many workers at once never take the same slot', async () => {
    const namespace = uniqueNamespace('woolrace');
    const count = 400;
    const capacity = 2 * count + 16;
    const rxWorkers = Array.from({ length: count }, () => makeWorker());
    const entry: { namespace: string; uids: string[]; woolLeftLock?: boolean } = {
      namespace,
      uids: rxWorkers.map((w) => w.uid),
    };
    used.push(entry);
    const discovery = localDiscovery(namespace, { pollInterval: 200, capacity });
    const recorder = new Recorder(discovery.events(), discovery.diagnostics);
    recorders.push(recorder);

    const wool = await woolProcess(namespace, capacity); // creates the segment
    const woolWorkers = Array.from({ length: count }, () => makeWorker());
    const woolUids = woolWorkers.map((worker) => worker.uid);
    entry.uids.push(...woolUids);
    const rx = new Child('publisher.ts', [namespace, JSON.stringify({ capacity, pollInterval: false })]);
    await waitFor(() => rx.messages.length > 0, 'woolrx publisher ready');

    // Go: both add their workers one by one, at the same time.
    const rxDone = rx.call({ op: 'run', workers: rxWorkers.map((worker) => ({ type: 'worker-added', worker })) });
    const woolDone = wool.publishMany(woolWorkers.map((worker) => ({ type: 'worker-added' as const, worker })));
    const [, woolReport] = await Promise.all([rxDone, woolDone]);
    assert.deepEqual([woolReport.count, woolReport.error], [count, undefined], 'wool registered every worker');

    const expected = new Set([...woolUids, ...rxWorkers.map((w) => w.uid)]);
    const scanned = woolScanUids(namespace);
    assert.equal(new Set(scanned).size, scanned.length, 'a uid in two slots');
    const missing = [...expected].filter((uid) => !scanned.includes(uid));
    assert.deepEqual(missing, [], `workers lost from the slot table (${missing.length} of ${expected.size})`);
    assert.equal(scanned.length, 2 * count);
    await waitFor(() => recorder.workers.size === 2 * count, `localDiscovery sees all ${2 * count} workers`, 20_000);
    assert.deepEqual(new Set(recorder.workers.keys()), expected);
    assert.deepEqual(
      recorder.diagnostics.filter((d) => d.kind === 'malformed-record'),
      [],
    );

    // woolrx leaves first (the segment may be wool's: wool's owner unlinks it at exit).
    await rx.call({ op: 'exit' });
    await rx.exited;
    const dropped = await wool.publishMany(woolWorkers.map((worker) => ({ type: 'worker-dropped' as const, worker })));
    assert.equal(dropped.error, undefined);
    await wool.exit();
    await waitFor(() => recorder.workers.size === 0, 'every worker withdrawn', 20_000);
    recorder.stop(); // last one out
    entry.woolLeftLock = true;
    assert.equal(recorder.error, undefined);
  });

  it('a publisher keeps one descriptor on the lock file between publishes and closes every descriptor on close()', async () => {
    const namespace = uniqueNamespace('woolfd');
    const workers = [makeWorker(), makeWorker(), makeWorker()];
    used.push({ namespace, uids: workers.map((w) => w.uid) });
    const lockFile = woolLockPath(namespace);
    const open = (): string[] =>
      readdirSync('/proc/self/fd').flatMap((fd) => {
        try {
          return [readlinkSync(join('/proc/self/fd', fd))];
        } catch {
          return []; // the directory's own descriptor, already closed
        }
      });
    const before = open().length;
    const publisher = localDiscovery(namespace, { pollInterval: false }).publisher();
    for (const w of workers) {
      await publisher.publish('worker-added', w);
      assert.equal(open().filter((path) => path === lockFile).length, 1, 'one descriptor on the lock file, kept');
    }
    await publisher.close();
    assert.deepEqual(
      open().filter((path) => path.startsWith(lockFile)),
      [],
      'lock file descriptor closed',
    );
    assert.equal(open().length, before, 'no descriptor leaked');
  });

  it('re-opens the lock file when the last one out removed it between two publishes', async () => {
    const namespace = uniqueNamespace('woolrelink');
    const a = makeWorker();
    const b = makeWorker();
    used.push({ namespace, uids: [a.uid, b.uid] });
    const first = localDiscovery(namespace, { pollInterval: false, lockTimeout: 300 }).publisher();
    await first.publish('worker-added', a); // opens (and keeps open) the lock file
    assert.ok(existsSync(woolLockPath(namespace)));
    await first.publish('worker-dropped', a);
    // Another woolrx process comes and goes as the last one out: it unlinks the lock file.
    const other = new Child('publisher.ts', [namespace, JSON.stringify({ pollInterval: false })]);
    await waitFor(() => other.messages.length > 0, 'second publisher ready');
    await other.call({ op: 'publish', type: 'worker-added', worker: b });
    await other.call({ op: 'publish', type: 'worker-dropped', worker: b });
    await other.call({ op: 'exit' });
    await other.exited;
    assert.equal(existsSync(woolLockPath(namespace)), false, 'the last one out removed the lock file');
    // The first publisher's open descriptor now names an unlinked file: it must lock the path again.
    await first.publish('worker-added', a);
    assert.ok(existsSync(woolLockPath(namespace)), 'the lock file is back');
    // And it is excluded by a wool process holding the new file (a stale descriptor would not be).
    const holder = await woolProcess(namespace);
    await holder.holdLock();
    await assert.rejects(first.publish('worker-updated', a), LockTimeoutError);
    await holder.exit();
    await first.close();
  });
});
