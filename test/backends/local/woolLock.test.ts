// woolrx and wool publishers exclude each other: woolrx also takes wool's
// flock(2) on <realpath(tmpdir)>/wool-lock-<short_hash(ns)>. The wool side is
// test/interop/woolpeer.py (stdlib flock, mmap), each in its own process.
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, readdirSync, readlinkSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { LockTimeoutError, localDiscovery, shortHash } from '../../../src/backends/local/index.js';
import { WoolFlock } from '../../../src/backends/local/WoolFlock.js';
import { localNames } from '../../../src/backends/local/localNames.js';
import type { WorkerInfo } from '../../../src/model/types.js';
import { assertClean, Child, isLockTimeout, killChildren, makeWorker, Recorder, TMP, uniqueNamespace, waitFor, strayTestFiles } from './helpers.js';

const WOOLPEER = fileURLToPath(new URL('../../interop/woolpeer.py', import.meta.url));
const used: { namespace: string; uids: string[]; woolLeftLock?: boolean }[] = [];
const peers: ChildProcessWithoutNullStreams[] = [];
/** Stopped in `after` too, so that a failing test cannot keep the process alive. */
const recorders: Recorder[] = [];

function woolLockPath(namespace: string): string {
  return join(TMP, `wool-lock-${shortHash(namespace)}`);
}

after(async () => {
  for (const recorder of recorders) recorder.stop();
  for (const peer of peers) if (peer.exitCode === null) peer.kill('SIGKILL');
  await killChildren();
  for (const { namespace, uids, woolLeftLock } of used) {
    // Only where a wool process was the last to use it: wool never removes its lock file.
    if (woolLeftLock === true) rmSync(woolLockPath(namespace), { force: true });
    await assertClean(namespace, uids);
  }
  assert.deepEqual(strayTestFiles(), [], 'nothing of these tests left in /dev/shm or the temp directory');
});

/** A woolpeer process with its output collected line by line. */
class Peer {
  readonly process: ChildProcessWithoutNullStreams;
  readonly lines: string[] = [];
  stderr = '';
  readonly exited: Promise<number | null>;

  constructor(args: readonly string[]) {
    this.process = spawn('python3', [WOOLPEER, ...args]);
    peers.push(this.process);
    let buffer = '';
    this.process.stdout.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      const parts = buffer.split('\n');
      buffer = parts.pop() ?? '';
      this.lines.push(...parts);
    });
    this.process.stderr.on('data', (chunk: Buffer) => (this.stderr += chunk.toString()));
    this.exited = new Promise((resolve) => {
      if (this.process.exitCode !== null) resolve(this.process.exitCode);
      else this.process.once('exit', resolve);
    });
  }

  /** Waits for a line equal to `line` (fails early, with stderr, if the peer exits). */
  async waitLine(line: string, timeout = 15_000): Promise<void> {
    await waitFor(() => this.lines.includes(line) || this.process.exitCode !== null, `peer line ${line}`, timeout);
    assert.ok(this.lines.includes(line), `peer exited without printing ${line}: ${this.stderr}`);
  }

  /** Closes stdin (the peer's signal to finish) and expects exit status 0. */
  async finish(): Promise<void> {
    this.process.stdin.end();
    assert.equal(await this.exited, 0, this.stderr);
    assert.equal(this.stderr, '');
  }
}

/** One non-blocking attempt at wool's flock by a Python process: "busy" or "free". */
function peerTryLock(namespace: string): string {
  const result = spawnSync('python3', [WOOLPEER, 'try-lock', '--namespace', namespace], { encoding: 'utf8' });
  assert.equal(result.status, 0, result.stderr);
  return result.stdout.trim();
}

function peerScanUids(namespace: string): string[] {
  const result = spawnSync('python3', [WOOLPEER, 'scan', '--namespace', namespace], { encoding: 'utf8', maxBuffer: 64 << 20 });
  assert.equal(result.status, 0, result.stderr);
  assert.equal(result.stderr, '');
  return result.stdout
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => (JSON.parse(line) as WorkerInfo).uid);
}

describe("local namespace lock ↔ wool's flock (woolpeer.py)", () => {
  it('a woolrx publish waits for a wool process holding the flock, without blocking the event loop; LockTimeoutError names namespace and timeout', async () => {
    const namespace = uniqueNamespace('woolflock');
    const w = makeWorker();
    used.push({ namespace, uids: [w.uid] });
    const holder = new Peer(['hold-lock', '--namespace', namespace]);
    await holder.waitLine('locked');
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
    const rxLock = new WoolFlock(names.rxLockPath, names.lockDirPath);
    assert.ok(rxLock.tryLock(), 'woolrx\'s lock is free');
    rxLock.close();

    // Released by wool: the same publisher proceeds.
    await holder.finish();
    await publisher.publish('worker-added', w);
    assert.deepEqual(peerScanUids(namespace), [w.uid]);
    await publisher.close();
    // Last one out, holding the flock, removed wool's lock file too (assertClean checks it).
  });

  it("a wool process cannot take the flock while a woolrx process holds the namespace lock; wool's publish waits for it", async () => {
    const namespace = uniqueNamespace('woolwaits');
    const w = makeWorker();
    const rx = makeWorker();
    used.push({ namespace, uids: [w.uid, rx.uid] });
    assert.equal(peerTryLock(namespace), 'free');
    const recorder = new Recorder(localDiscovery(namespace, { pollInterval: 200 }).events());
    recorders.push(recorder);
    const holder = new Child('lockHolder.ts', [namespace]); // acquireNamespaceLock, held until told
    await waitFor(() => holder.messages.some((m) => (m as { locked?: boolean }).locked), 'woolrx lock holder ready');
    assert.equal(peerTryLock(namespace), 'busy', "wool's non-blocking flock fails while woolrx holds the lock");
    // A wool publisher (blocking flock, as wool does) is held off until woolrx releases.
    const woolPublisher = new Peer([
      'publish', '--namespace', namespace, '--uid', w.uid, '--address', w.address, '--pid', String(w.pid), '--version', w.version,
      '--unlink-segment-on-exit',
    ]);
    await new Promise((resolve) => setTimeout(resolve, 400));
    assert.deepEqual(woolPublisher.lines, [], 'wool published while woolrx held the lock');
    assert.equal(woolPublisher.process.exitCode, null);
    const released = performance.now();
    await holder.call({ op: 'release' });
    await holder.exited;
    await woolPublisher.waitLine('ready');
    assert.ok(performance.now() - released < 5_000);
    assert.equal(peerTryLock(namespace), 'free');
    // Both kinds of publisher in one namespace after that.
    const publisher = localDiscovery(namespace, { pollInterval: false }).publisher();
    await publisher.publish('worker-added', rx);
    assert.deepEqual(new Set(peerScanUids(namespace)), new Set([w.uid, rx.uid]));
    await waitFor(() => recorder.workers.size === 2, 'both workers seen');
    await publisher.close();
    await woolPublisher.finish(); // unlinks its segment
    await waitFor(() => recorder.workers.size === 0, 'both withdrawn');
    recorder.stop(); // last one out: the namespace is gone, so it also removes wool's lock file
    assert.equal(existsSync(woolLockPath(namespace)), false);
  });

  it('a wool process and a woolrx process adding many workers at once never take the same slot', async () => {
    const namespace = uniqueNamespace('woolrace');
    const count = 400;
    const capacity = 2 * count + 16;
    const rxWorkers = Array.from({ length: count }, () => makeWorker());
    const entry: { namespace: string; uids: string[]; woolLeftLock?: boolean } = { namespace, uids: rxWorkers.map((w) => w.uid) };
    used.push(entry);
    const discovery = localDiscovery(namespace, { pollInterval: 200, capacity });
    const recorder = new Recorder(discovery.events(), discovery.diagnostics);
    recorders.push(recorder);

    const wool = new Peer([
      'publish-many', '--namespace', namespace, '--count', String(count), '--pid', String(process.pid), '--capacity', String(capacity),
      '--unlink-segment-on-exit',
    ]);
    await wool.waitLine('started');
    const woolUids = (JSON.parse(wool.lines[0] ?? '{}') as { uids: string[] }).uids;
    assert.equal(woolUids.length, count);
    entry.uids.push(...woolUids);
    const rx = new Child('publisher.ts', [namespace, JSON.stringify({ capacity, pollInterval: false })]);
    await waitFor(() => rx.messages.length > 0, 'woolrx publisher ready');

    // Go: both add their workers one by one, at the same time.
    const rxDone = rx.call({ op: 'run', workers: rxWorkers.map((worker) => ({ type: 'worker-added', worker })) });
    wool.process.stdin.write('go\n');
    await Promise.all([rxDone, wool.waitLine('ready', 60_000)]);

    const expected = new Set([...woolUids, ...rxWorkers.map((w) => w.uid)]);
    const scanned = peerScanUids(namespace);
    assert.equal(new Set(scanned).size, scanned.length, 'a uid in two slots');
    const missing = [...expected].filter((uid) => !scanned.includes(uid));
    assert.deepEqual(missing, [], `workers lost from the slot table (${missing.length} of ${expected.size})`);
    assert.equal(scanned.length, 2 * count);
    await waitFor(() => recorder.workers.size === 2 * count, `localDiscovery sees all ${2 * count} workers`, 20_000);
    assert.deepEqual(new Set(recorder.workers.keys()), expected);
    assert.deepEqual(recorder.diagnostics.filter((d) => d.kind === 'malformed-record'), []);

    // woolrx leaves first (the segment may be wool's: wool's owner unlinks it at exit).
    await rx.call({ op: 'exit' });
    await rx.exited;
    await wool.finish();
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
    assert.deepEqual(open().filter((path) => path.startsWith(lockFile)), [], 'lock file descriptor closed');
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
    const holder = new Peer(['hold-lock', '--namespace', namespace]);
    await holder.waitLine('locked');
    await assert.rejects(first.publish('worker-updated', a), LockTimeoutError);
    await holder.finish();
    await first.close();
  });
});
