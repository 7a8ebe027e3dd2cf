// The namespace lock against a real holder in another process.
import assert from 'node:assert/strict';
import { closeSync, existsSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
import { tryNamespaceLock } from '../../../src/backends/local/lock/namespaceLock.js';
import { ofdlock } from '../../../src/backends/local/lock/flockAddon.js';
import { localDiscovery, shortHash } from '../../../src/backends/local/index.js';
import { localNames } from '../../../src/backends/local/names/localNames.js';
import { LOCK_HOLD_MS, LOCK_LINGER_MS, LOCK_PAUSE_MS } from '../../../src/backends/local/lock/LockHolding.js';
import { FileLock } from '../../../src/backends/local/lock/FileLock.js';
import {
  assertClean,
  Child,
  isLockTimeout,
  killChildren,
  makeWorker,
  TMP,
  uniqueNamespace,
  waitFor,
  strayTestFiles,
} from './helpers.js';

const used: { namespace: string; uids: string[] }[] = [];

after(async () => {
  await killChildren();
  for (const { namespace, uids } of used) await assertClean(namespace, uids);
  assert.deepEqual(strayTestFiles(), [], 'nothing of these tests left in /dev/shm or the temp directory');
});

async function holder(namespace: string): Promise<Child> {
  const child = new Child('lockHolder.ts', [namespace]);
  await waitFor(() => child.messages.some((m) => (m as { locked?: boolean }).locked), 'lock holder ready');
  return child;
}

describe('local namespace lock', () => {
  it('publish fails with LockTimeoutError (naming namespace and timeout) while another process holds the lock', async () => {
    const namespace = uniqueNamespace('locktimeout');
    const w = makeWorker();
    used.push({ namespace, uids: [w.uid] });
    const child = await holder(namespace);
    const publisher = localDiscovery(namespace, { lockTimeout: 300, pollInterval: false }).publisher();
    const started = performance.now();
    await assert.rejects(publisher.publish('worker-added', w), isLockTimeout(namespace, 300));
    const waited = performance.now() - started;
    assert.ok(waited >= 290 && waited < 3_000, `waited ${waited} ms`);
    assert.equal(existsSync(join('/dev/shm', shortHash(namespace))), false, 'nothing written without the lock');
    await child.call({ op: 'release' });
    await child.exited;
    await publisher.publish('worker-added', w);
    await publisher.close();
  });

  it('takes the lock of a holder that was SIGKILLed at once (a kernel lock: no stale wait)', async () => {
    const namespace = uniqueNamespace('lockkilled');
    const w = makeWorker();
    used.push({ namespace, uids: [w.uid] });
    const child = await holder(namespace);
    const publisher = localDiscovery(namespace, { lockTimeout: 10_000, pollInterval: false }).publisher();
    await assert.rejects(
      localDiscovery(namespace, { lockTimeout: 100, pollInterval: false })
        .publisher()
        .publish('worker-added', makeWorker()),
      isLockTimeout(namespace, 100),
      'held while the holder lives',
    );
    await child.kill('SIGKILL');
    assert.ok(
      existsSync(join('/dev/shm', `woolrx-lock-${shortHash(namespace)}`, 'lock')),
      'the dead holder left its lock file',
    );
    const started = performance.now();
    await publisher.publish('worker-added', w);
    const waited = performance.now() - started;
    assert.ok(waited < 1_000, `took the dead holder's lock after ${waited} ms`);
    await publisher.close();
  });
});

/**
 * An observer on a namespace's woolrx lock, its file kept open (a try costs a
 * flock): `free()` takes the lock if it can and lets it go at once.
 */
function lockObserver(namespace: string): { free: () => boolean; flock: FileLock } {
  const names = localNames(namespace, TMP);
  const flock = new FileLock(names.rxLockPath, names.lockDirPath);
  return {
    flock,
    free: () => {
      const taken = flock.tryLock();
      if (taken) flock.unlock();
      return taken;
    },
  };
}

describe('local namespace lock: a burst of publishes takes it once', () => {
  /**
   * Takes the namespace lock from another descriptor without waiting; releases it at once. @returns
   * Whether it was free.
   */
  function free(namespace: string): boolean {
    const release = tryNamespaceLock({ ...localNames(namespace, TMP), lockTimeout: 0 });
    release?.();
    return release !== undefined;
  }

  it('a lone publish releases the lock at once; the next of a burst keeps it until the event loop turns', async () => {
    const namespace = uniqueNamespace('linger');
    const w = makeWorker();
    used.push({ namespace, uids: [w.uid] });
    const publisher = localDiscovery(namespace, { pollInterval: false }).publisher();
    // The first publish creates the namespace (slower than the bound).
    await publisher.publish('worker-added', w);
    await nextTurn();
    assert.equal(free(namespace), true, 'released once the loop turned');
    // A section longer than the bound releases at its end (a busy machine
    // may pause this process in one): some of a few must be kept.
    const observer = lockObserver(namespace);
    const observed = observer.free;
    let kept = 0;
    try {
      for (let attempt = 0; attempt < 20 && kept < 3; attempt += 1) {
        await sleep(2); // a lone publish: nothing published for a while
        await publisher.publish('worker-updated', { ...w, version: `2.0.${attempt}` });
        assert.equal(observed(), true, 'a lone publish releases the lock before its notification');
        await publisher.publish('worker-updated', { ...w, version: `2.1.${attempt}` });
        if (!observed()) kept += 1;
        await nextTurn();
        assert.equal(observed(), true, 'released once the loop turned');
      }
    } finally {
      observer.flock.close();
    }
    assert.equal(kept, 3, 'the second publish of a burst keeps it while the turn of the event loop lasts');
    await publisher.close();
  });

  it(`publishes chained without a turn of the loop keep it ${LOCK_LINGER_MS} ms at most`, async () => {
    const namespace = uniqueNamespace('lingerbound');
    const w = makeWorker();
    used.push({ namespace, uids: [w.uid] });
    const publisher = localDiscovery(namespace, { pollInterval: false }).publisher();
    await publisher.publish('worker-added', w);
    const observer = lockObserver(namespace);
    let released = 0;
    let publishes = 0;
    try {
      const started = performance.now();
      while (performance.now() - started < 10 * LOCK_LINGER_MS) {
        await publisher.publish('worker-updated', { ...w, version: `1.0.${publishes}` });
        publishes += 1;
        if (observer.free()) released += 1;
      }
    } finally {
      observer.flock.close();
    }
    assert.ok(released >= 2, `released ${released} times in ${publishes} publishes over ${10 * LOCK_LINGER_MS} ms`);
    assert.ok(released < publishes, `kept between some of the ${publishes} publishes`);
    await publisher.close();
  });

  it("a burst's notifications: the first at once, the rest when the lock is released, one per change", async () => {
    const namespace = uniqueNamespace('lingernotify');
    const w = makeWorker();
    used.push({ namespace, uids: [w.uid] });
    const names = localNames(namespace, TMP);
    /** The count in the notification file's marker (`woolrx:<pid>:<salt>:<count>`): touches so far. */
    const touches = (): number => Number(/:(\d+) *$/.exec(readFileSync(names.notifyPath, 'latin1'))?.[1]);
    const publisher = localDiscovery(namespace, { pollInterval: false }).publisher();
    await publisher.publish('worker-added', w);
    await nextTurn();
    let owed = false;
    for (let attempt = 0; attempt < 20 && !owed; attempt += 1) {
      await sleep(2);
      const before = touches();
      await publisher.publish('worker-updated', { ...w, version: `2.0.${attempt}` });
      await publisher.publish('worker-updated', { ...w, version: `2.1.${attempt}` });
      const first = touches();
      assert.equal(
        first,
        before + 2,
        'a lone change, and the next under the lock taken again at once, are notified at once',
      );
      await publisher.publish('worker-updated', { ...w, version: `3.0.${attempt}` });
      await publisher.publish('worker-updated', { ...w, version: `4.0.${attempt}` });
      // Both under the lock kept from the second (unless a section outlasted the bound).
      owed = touches() === first;
      await nextTurn();
      assert.equal(touches(), before + 4, 'every change notified once the lock is released');
    }
    assert.ok(owed, 'the notifications of changes under a kept lock wait for its release');
    await publisher.close();
  });

  it("a process that exits in the burst's turn still sends the burst's notifications", async () => {
    const namespace = uniqueNamespace('lingerexit');
    const w = makeWorker();
    used.push({ namespace, uids: [w.uid] });
    const names = localNames(namespace, TMP);
    const child = new Child('exitAfterBurst.ts', [namespace, w.uid]);
    assert.equal(await child.exited, 0);
    // The child's touches, counted in its marker: one per change.
    assert.match(readFileSync(names.notifyPath, 'latin1'), /^woolrx:\d+:[0-9a-f]+:000000004 *$/);
    assert.equal(free(namespace), true, 'the lock died with the process');
    const publisher = localDiscovery(namespace, { pollInterval: false }).publisher();
    await publisher.publish('worker-dropped', w);
    await publisher.close();
  });

  it(`a burst of publishes that never lets the event loop turn leaves the lock free ${LOCK_PAUSE_MS} ms every ${LOCK_HOLD_MS} ms`, async () => {
    const namespace = uniqueNamespace('lingerpause');
    const w = makeWorker();
    used.push({ namespace, uids: [w.uid] });
    const publisher = localDiscovery(namespace, { pollInterval: false }).publisher();
    await publisher.publish('worker-added', w);
    await nextTurn();
    // Another holder that polls like wool (never says it waits): it can only
    // run while the burst leaves the event loop a turn.
    let taken = 0;
    const poller = setInterval(() => {
      if (free(namespace)) taken += 1;
    }, 0.5);
    const started = performance.now();
    let publishes = 0;
    /** Publishes that waited out a pause. */
    let paused = 0;
    try {
      while (performance.now() - started < 8 * LOCK_HOLD_MS) {
        const before = performance.now();
        await publisher.publish('worker-updated', { ...w, version: `1.0.${publishes}` });
        if (performance.now() - before >= LOCK_PAUSE_MS) paused += 1;
        publishes += 1;
      }
    } finally {
      clearInterval(poller);
    }
    const elapsed = performance.now() - started;
    assert.ok(paused >= 3, `${paused} pauses in ${elapsed.toFixed(0)} ms of ${publishes} publishes`);
    assert.ok(
      taken >= 2,
      `the poller took the lock ${taken} times in ${elapsed.toFixed(0)} ms of ${publishes} publishes`,
    );
    await publisher.close();
  });

  it('a publisher waiting for the lock stops the holder from keeping it', async () => {
    const namespace = uniqueNamespace('lingerwait');
    const w = makeWorker();
    used.push({ namespace, uids: [w.uid] });
    const names = localNames(namespace, TMP);
    const publisher = localDiscovery(namespace, { pollInterval: false }).publisher();
    await publisher.publish('worker-added', w);
    const waiter = new FileLock(names.rxLockPath, names.lockDirPath);
    try {
      let kept = false;
      for (let attempt = 0; attempt < 20 && !kept; attempt += 1) {
        await nextTurn();
        await publisher.publish('worker-updated', { ...w, version: `1.1.${attempt}` });
        await publisher.publish('worker-updated', { ...w, version: `1.2.${attempt}` });
        kept = !waiter.tryLock();
        if (!kept) waiter.unlock();
      }
      assert.ok(kept, 'kept by the publisher');
      waiter.announce(true);
      await publisher.publish('worker-updated', { ...w, version: '2.0.0' });
      assert.equal(waiter.tryLock(), true, 'released at the end of the section, without a turn of the loop');
      waiter.unlock();
      waiter.announce(false);
      kept = false;
      for (let attempt = 0; attempt < 20 && !kept; attempt += 1) {
        await nextTurn();
        await publisher.publish('worker-updated', { ...w, version: `3.0.${attempt}` });
        await publisher.publish('worker-updated', { ...w, version: `3.1.${attempt}` });
        kept = !waiter.tryLock();
        if (!kept) waiter.unlock();
      }
      assert.ok(kept, 'kept again once nobody waits');
    } finally {
      waiter.close();
    }
    await nextTurn();
    await publisher.close();
  });

  it('a waiting publisher says so only while it waits', async () => {
    const namespace = uniqueNamespace('announce');
    const w = makeWorker();
    used.push({ namespace, uids: [w.uid] });
    const child = await holder(namespace);
    const names = localNames(namespace, TMP);
    const observer = new FileLock(names.rxLockPath, names.lockDirPath);
    const publisher = localDiscovery(namespace, { lockTimeout: 10_000, pollInterval: false }).publisher();
    try {
      assert.equal(observer.tryLock(), false, 'held by the child');
      assert.equal(observer.waited(), false, 'nobody waits yet');
      const publish = publisher.publish('worker-added', w);
      await waitFor(() => observer.waited(), 'the publisher says it waits');
      await child.call({ op: 'release' });
      await publish;
      await nextTurn();
      assert.equal(observer.waited(), false, 'no longer says so once it has the lock');
    } finally {
      observer.close();
    }
    await child.exited;
    await publisher.close();
  });

  it('ofdlock reports a bad descriptor as an errno error', () => {
    const fd = openSync('/dev/null', 'r');
    closeSync(fd);
    assert.throws(
      () => ofdlock(fd, 'query', 4096),
      (error: NodeJS.ErrnoException) => error.code === 'EBADF' && error.syscall === 'fcntl',
    );
  });
});
