// The local backend against another local user (symlinks,
// squatting) and against sizes another process writes into shared memory.
// The second user is a real unprivileged account these tests create and
// delete themselves (useradd/userdel; the hostile steps run under runuser).
import assert from 'node:assert/strict';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  existsSync,
  ftruncateSync,
  openSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
  writeSync,
  mkdirSync,
} from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { localDiscovery, UnsafeObjectError } from '../../../src/backends/local/index.js';
import { blockName } from '../../../src/backends/local/block/blockFile.js';
import { localNames } from '../../../src/backends/local/names/localNames.js';
import { SegmentFile } from '../../../src/backends/local/segment/SegmentFile.js';
import { WoolrxError } from '../../../src/errors/WoolrxError.js';
import { assertClean, makeWorker, Recorder, strayTestFiles, TMP, uniqueNamespace, waitFor } from './helpers.js';

const user = `woolrxt${randomBytes(3).toString('hex')}`;
let uid = -1;
const holders: ChildProcess[] = [];
const cleanups: (() => void)[] = [];

/** SIGKILLs a detached child's whole process group (the other user's processes it started). */
function killGroup(child: ChildProcess): void {
  try {
    if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

/** Runs a shell command as the unprivileged user, bounded in time. */
function asUser(script: string): void {
  execFileSync('runuser', ['-u', user, '--', 'sh', '-c', script], { stdio: 'inherit', timeout: 10_000 });
}

before(() => {
  // useradd may find /etc/passwd locked by a concurrent one: retry briefly.
  for (let attempt = 0; ; attempt += 1) {
    try {
      execFileSync('useradd', ['--system', '--no-create-home', '--shell', '/bin/sh', user], {
        stdio: 'pipe',
        timeout: 10_000,
      });
      break;
    } catch (error) {
      if (attempt >= 20) throw error;
      execFileSync('sleep', ['0.2']);
    }
  }
  uid = Number(execFileSync('id', ['-u', user], { encoding: 'utf8' }).trim());
});

after(() => {
  for (const holder of holders) killGroup(holder);
  for (const cleanup of cleanups) {
    try {
      cleanup();
    } catch {
      // Best effort; the leftovers check below names what remains.
    }
  }
  let deleted = false;
  for (let attempt = 0; attempt < 25 && !deleted; attempt += 1) {
    try {
      execFileSync('userdel', [user], { stdio: 'pipe', timeout: 10_000 });
      deleted = true;
    } catch {
      execFileSync('sleep', ['0.2']);
    }
  }
  assert.ok(deleted, `the test user ${user} was deleted`);
  assert.deepEqual(strayTestFiles(), [], 'nothing of these tests left in /dev/shm or the temp directory');
});

/** For `assert.rejects`/`throws`: an UnsafeObjectError naming `path` (and `owner`, when given). */
function isUnsafe(path: string, owner?: number): (error: unknown) => true {
  return (error: unknown) => {
    assert.ok(error instanceof UnsafeObjectError, `expected UnsafeObjectError, got ${String(error)}`);
    assert.ok(error instanceof WoolrxError);
    assert.equal(error.code, 'WOOLRX_UNSAFE_OBJECT');
    assert.equal(error.path, path);
    assert.ok(error.message.includes(path));
    if (owner !== undefined) {
      assert.equal(error.owner, owner);
      assert.match(error.message, new RegExp(`uid ${owner}`));
    }
    return true;
  };
}

/** A root-owned 0600 file that must never change. */
function victim(): { path: string; check: () => void } {
  const path = join(TMP, `woolrx-victim-${randomBytes(4).toString('hex')}`);
  writeFileSync(path, 'precious', { mode: 0o600 });
  cleanups.push(() => rmSync(path, { force: true }));
  return { path, check: () => assert.equal(readFileSync(path, 'utf8'), 'precious', `${path} was written through`) };
}

describe('local backend security: another user', () => {
  it("never writes through another user's symlinks in a directory that user made first (notify, .woolrx-segment)", async () => {
    const namespace = uniqueNamespace('symlink');
    const names = localNames(namespace, TMP);
    const target = victim();
    cleanups.push(() => rmSync(names.notifyDir, { recursive: true, force: true }));
    asUser(
      `mkdir -m 0777 '${names.notifyDir}' && ln -s '${target.path}' '${names.notifyPath}' && ln -s '${target.path}' '${names.ownerPath}'`,
    );
    const discovery = localDiscovery(namespace, { pollInterval: false, lockTimeout: 2_000 });
    const publisher = discovery.publisher();
    await assert.rejects(publisher.publish('worker-added', makeWorker()), isUnsafe(names.notifyDir, uid));
    const recorder = new Recorder(discovery.events());
    assert.ok(recorder.error !== undefined, 'a subscription refuses to watch the directory');
    isUnsafe(names.notifyDir, uid)(recorder.error);
    recorder.stop();
    await publisher.close();
    assert.equal(statSync(names.notifyDir).uid, uid, "the other user's directory is left alone");
    target.check();
    rmSync(names.notifyDir, { recursive: true, force: true });
    await assertClean(namespace);
  });

  it('never follows a symlink even in its own directory (notify → a root file)', async () => {
    const namespace = uniqueNamespace('ownlink');
    const names = localNames(namespace, TMP);
    const target = victim();
    mkdirSync(names.notifyDir, { mode: 0o700 });
    symlinkSync(target.path, names.notifyPath);
    cleanups.push(() => rmSync(names.notifyDir, { recursive: true, force: true }));
    const publisher = localDiscovery(namespace, { pollInterval: false, lockTimeout: 2_000 }).publisher();
    const w = makeWorker();
    await assert.rejects(publisher.publish('worker-added', w), isUnsafe(names.notifyPath));
    await publisher.close();
    target.check();
    rmSync(names.notifyPath, { force: true });
    localDiscovery(namespace).events().subscribe().unsubscribe(); // the last one out
    await assertClean(namespace, [w.uid]);
  });

  it("refuses another user's segment (0666): no worker injected into root's subscribers, no root write into it", async () => {
    const namespace = uniqueNamespace('squatseg');
    const names = localNames(namespace, TMP);
    cleanups.push(() => rmSync(names.segmentPath, { force: true }));
    // A ready segment with one "worker" slot, made by the other user.
    const planted = Buffer.alloc(16 + 16 * 4);
    planted.write('WLD1', 0, 'latin1');
    planted.writeUInt32LE(4, 4);
    randomBytes(16).copy(planted, 16);
    const staging = join(TMP, `woolrx-staging-${randomBytes(4).toString('hex')}`);
    writeFileSync(staging, planted, { mode: 0o644 });
    cleanups.push(() => rmSync(staging, { force: true }));
    asUser(`umask 0 && cat '${staging}' > '${names.segmentPath}' && chmod 0666 '${names.segmentPath}'`);
    assert.equal(statSync(names.segmentPath).uid, uid);
    const discovery = localDiscovery(namespace, { pollInterval: false, lockTimeout: 2_000 });
    const recorder = new Recorder(discovery.events(), discovery.diagnostics);
    assert.equal(recorder.events.length, 0, 'no worker injected');
    isUnsafe(names.segmentPath, uid)(recorder.error);
    recorder.stop();
    const publisher = discovery.publisher();
    await assert.rejects(publisher.publish('worker-added', makeWorker()), isUnsafe(names.segmentPath, uid));
    await publisher.close();
    assert.deepEqual(readFileSync(names.segmentPath), planted, 'nothing written into it');
    unlinkSync(names.segmentPath);
    localDiscovery(namespace).events().subscribe().unsubscribe(); // the last one out
    await assertClean(namespace);
  });

  it("refuses another user's lock directory and journal, and a lock file another user holds: at once, not a LockTimeoutError", async () => {
    const namespace = uniqueNamespace('squatlock');
    const names = localNames(namespace, TMP);
    cleanups.push(() => rmSync(names.lockDirPath, { recursive: true, force: true }));
    cleanups.push(() => rmSync(names.lockPath, { force: true }));
    asUser(`mkdir -m 0777 '${names.lockDirPath}' && : > '${names.journalPath}' && chmod 0666 '${names.journalPath}'`);
    const publisher = localDiscovery(namespace, { pollInterval: false, lockTimeout: 5_000 }).publisher();
    let started = performance.now();
    await assert.rejects(publisher.publish('worker-added', makeWorker()), isUnsafe(names.lockDirPath, uid));
    assert.ok(performance.now() - started < 1_000);
    rmSync(names.lockDirPath, { recursive: true, force: true });
    // wool's lock file, made and flock'ed (for ever) by the other user.
    // Its own process group, so that runuser, flock and sleep are killed together.
    const holder = spawn('runuser', ['-u', user, '--', 'flock', names.lockPath, 'sleep', '60'], {
      stdio: 'ignore',
      detached: true,
    });
    holders.push(holder);
    await waitFor(() => existsSync(names.lockPath), "the other user's lock file");
    started = performance.now();
    await assert.rejects(publisher.publish('worker-added', makeWorker()), isUnsafe(names.lockPath, uid));
    assert.ok(performance.now() - started < 1_000, 'refused at once, not after lockTimeout');
    killGroup(holder);
    await publisher.close();
    rmSync(names.lockPath, { force: true });
    rmSync(names.lockDirPath, { recursive: true, force: true });
    rmSync(names.notifyDir, { recursive: true, force: true });
    localDiscovery(namespace).events().subscribe().unsubscribe(); // the last one out
    await assertClean(namespace);
  });
});

describe('local backend: sizes from shared memory are bounded', () => {
  it('a 5 GiB block is skipped and reported, memory stays bounded, and the stream goes on', async () => {
    const namespace = uniqueNamespace('hugeblock');
    const discovery = localDiscovery(namespace, { pollInterval: 100 });
    const publisher = discovery.publisher();
    const huge = makeWorker();
    const fine = makeWorker();
    await publisher.publish('worker-added', huge);
    // Its block, grown (sparse) to 5 GiB with a length prefix to match.
    const path = join('/dev/shm', blockName(huge.uid));
    const fd = openSync(path, 'r+');
    ftruncateSync(fd, 5 * 2 ** 30);
    const prefix = Buffer.alloc(4);
    prefix.writeUInt32LE(2 ** 32 - 5, 0);
    writeSync(fd, prefix, 0, 4, 0);
    closeSync(fd);
    const rss = process.memoryUsage().rss;
    const recorder = new Recorder(discovery.events(), discovery.diagnostics);
    await publisher.publish('worker-added', fine);
    await waitFor(() => recorder.workers.has(fine.uid), 'the next worker');
    assert.equal(recorder.error, undefined, 'the stream does not error');
    assert.equal(recorder.workers.has(huge.uid), false);
    const report = recorder.diagnostics.find((d) => d.uid === huge.uid);
    assert.equal(report?.kind, 'malformed-record');
    assert.match(report?.message ?? '', /5368709120 bytes, more than the 1048576 bytes read at most/);
    assert.ok(
      process.memoryUsage().rss - rss < 200 * 2 ** 20,
      `RSS grew by ${(process.memoryUsage().rss - rss) / 2 ** 20} MiB`,
    );
    recorder.stop();
    await publisher.close();
    await assertClean(namespace, [huge.uid, fine.uid]);
  });

  it('a segment claiming 2^28+1 slots is reported and not allocated for; the stream goes on once it is fixed', async () => {
    const namespace = uniqueNamespace('hugeseg');
    const names = localNames(namespace, TMP);
    const segment = SegmentFile.create(names.segmentPath, 4);
    assert.ok(segment);
    const capacity = 2 ** 28 + 1;
    const header = Buffer.alloc(4);
    header.writeUInt32LE(capacity, 0);
    writeSync(segment.fd, header, 0, 4, 4);
    ftruncateSync(segment.fd, 16 + 16 * capacity); // sparse: costs nothing until read
    const discovery = localDiscovery(namespace, { pollInterval: 100 });
    const rss = process.memoryUsage().rss;
    const recorder = new Recorder(discovery.events(), discovery.diagnostics);
    await waitFor(
      () => recorder.diagnostics.some((d) => /claims a capacity of 268435457 slots/.test(d.message)),
      'the report',
    );
    assert.equal(recorder.error, undefined, 'the stream does not error');
    assert.ok(
      process.memoryUsage().rss - rss < 200 * 2 ** 20,
      `RSS grew by ${(process.memoryUsage().rss - rss) / 2 ** 20} MiB`,
    );
    const publisher = discovery.publisher();
    await assert.rejects(publisher.publish('worker-added', makeWorker()), (error: unknown) => {
      assert.ok(error instanceof WoolrxError);
      assert.equal(error.code, 'WOOLRX_SEGMENT_TOO_LARGE');
      assert.match(error.message, /268435457/);
      return true;
    });
    // Fixed: capacity 4 again; a worker written by hand appears.
    header.writeUInt32LE(4, 0);
    writeSync(segment.fd, header, 0, 4, 4);
    ftruncateSync(segment.fd, 16 + 16 * 4);
    segment.close();
    unlinkSync(names.segmentPath);
    const w = makeWorker();
    await publisher.publish('worker-added', w);
    await waitFor(() => recorder.workers.has(w.uid), 'a worker once the segment is usable');
    recorder.stop();
    await publisher.close();
    await assertClean(namespace, [w.uid]);
  });

  it('a namespace too long for NAME_MAX is a TypeError naming the limit, at construction', () => {
    assert.throws(
      () => localDiscovery('a'.repeat(300)),
      (error: unknown) => {
        assert.ok(error instanceof TypeError);
        assert.match(error.message, /300 bytes long \(at most 250 UTF-8 bytes.*NAME_MAX, 255/);
        return true;
      },
    );
    assert.throws(() => localDiscovery('é'.repeat(126)), /252 bytes long/);
    localDiscovery('a'.repeat(250));
  });
});
