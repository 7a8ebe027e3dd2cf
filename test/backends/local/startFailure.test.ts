// A local subscription or publisher that fails at some step of its start
// reports a coded error naming the fix and leaves nothing behind: not the
// lock folder it made before the failing step, not a lock file re-created
// by a leaver's retry after the last one out removed it.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { firstValueFrom } from 'rxjs';
import { removeLockParent, tryNamespaceLock } from '../../../src/backends/local/lock/namespaceLock.js';
import { cleanupNamespace } from '../../../src/backends/local/namespaceCleanup.js';
import { localDiscovery, shortHash, TmpdirUnusableError } from '../../../src/backends/local/index.js';
import { localNames } from '../../../src/backends/local/names/localNames.js';
import { FileLock } from '../../../src/backends/local/lock/FileLock.js';
import { WoolrxError } from '../../../src/errors/WoolrxError.js';
import { assertClean, makeWorker, strayTestFiles, TMP, uniqueNamespace } from './helpers.js';

const scratch = mkdtempSync(join(TMP, 'woolrx-startfailure-'));
const plainFile = join(scratch, 'not-a-directory');
writeFileSync(plainFile, '');
const used: { namespace: string; uids: string[] }[] = [];

after(async () => {
  rmSync(scratch, { recursive: true, force: true });
  const left: string[] = [];
  for (const { namespace } of used) {
    const lockDir = `/dev/shm/woolrx-lock-${shortHash(namespace)}`;
    if (existsSync(lockDir)) left.push(lockDir);
    rmSync(lockDir, { recursive: true, force: true });
  }
  for (const { namespace, uids } of used) await assertClean(namespace, uids);
  assert.deepEqual(left, [], 'lock folders left behind');
  assert.deepEqual(strayTestFiles(), [], 'nothing of these tests left in /dev/shm or the temp directory');
});

function namespace(tag: string, ...uids: string[]): string {
  const ns = uniqueNamespace(tag);
  used.push({ namespace: ns, uids });
  return ns;
}

/** For `assert.rejects`/`throws`: a TmpdirUnusableError naming `path`, `why` and the fix. */
function isTmpdirUnusable(path: string, why: string): (error: unknown) => true {
  return (error: unknown) => {
    assert.ok(error instanceof TmpdirUnusableError, String(error));
    assert.ok(error instanceof WoolrxError);
    assert.equal(error.code, 'WOOLRX_TMPDIR_UNUSABLE');
    assert.equal(error.path, path);
    assert.equal(
      error.message,
      `localDiscovery: tmpdir ${path} ${why}; pass an existing directory this user can write as option tmpdir (default: os.tmpdir(), from $TMPDIR)`,
    );
    return true;
  };
}

function lockDir(ns: string): string {
  return `/dev/shm/woolrx-lock-${shortHash(ns)}`;
}

describe('local: a start that fails leaves nothing behind', () => {
  it('a subscription whose tmpdir is a plain file errors with WOOLRX_TMPDIR_UNUSABLE and leaves no lock folder', async () => {
    const ns = namespace('plainsub');
    const discovery = localDiscovery(ns, { tmpdir: plainFile });
    const diagnostics: string[] = [];
    const watching = discovery.diagnostics.subscribe((diagnostic) => diagnostics.push(diagnostic.message));
    try {
      await assert.rejects(firstValueFrom(discovery.events()), isTmpdirUnusable(plainFile, 'is not a directory'));
      // Twice: the second start finds nothing of the first.
      await assert.rejects(firstValueFrom(discovery.watch()), isTmpdirUnusable(plainFile, 'is not a directory'));
    } finally {
      watching.unsubscribe();
    }
    assert.equal(existsSync(lockDir(ns)), false, `${lockDir(ns)} left behind`);
    await sleep(50); // no background retry re-creates it
    assert.equal(existsSync(lockDir(ns)), false, `${lockDir(ns)} left behind`);
    assert.ok(
      diagnostics.every((message) => !message.includes('ENOTDIR')),
      `raw errors reported: ${diagnostics.join('; ')}`,
    );
  });

  it('a publish whose tmpdir is a plain file rejects with WOOLRX_TMPDIR_UNUSABLE; the lock folder is gone at once, before close()', async () => {
    const worker = makeWorker();
    const ns = namespace('plainpub', worker.uid);
    const publisher = localDiscovery(ns, { tmpdir: plainFile, pollInterval: false }).publisher();
    try {
      await assert.rejects(
        publisher.publish('worker-added', worker),
        isTmpdirUnusable(plainFile, 'is not a directory'),
      );
      assert.equal(existsSync(lockDir(ns)), false, `${lockDir(ns)} left behind by the failed publish`);
      await assert.rejects(
        publisher.publish('worker-added', worker),
        isTmpdirUnusable(plainFile, 'is not a directory'),
      );
    } finally {
      await publisher.close();
    }
    assert.equal(existsSync(lockDir(ns)), false, `${lockDir(ns)} left behind`);
  });

  it('a tmpdir that does not exist: localDiscovery() throws WOOLRX_TMPDIR_UNUSABLE; one removed since, the start errors with it', async () => {
    const missing = join(scratch, 'missing');
    assert.throws(
      () => localDiscovery(namespace('missing'), { tmpdir: missing }),
      isTmpdirUnusable(missing, 'does not exist'),
    );

    const gone = mkdtempSync(join(scratch, 'gone-'));
    const ns = namespace('gone');
    const discovery = localDiscovery(ns, { tmpdir: gone, pollInterval: false });
    rmdirSync(gone);
    await assert.rejects(firstValueFrom(discovery.events()), isTmpdirUnusable(gone, 'does not exist'));
    const worker = makeWorker();
    used.at(-1)?.uids.push(worker.uid);
    const publisher = discovery.publisher();
    await assert.rejects(publisher.publish('worker-added', worker), isTmpdirUnusable(gone, 'does not exist'));
    await publisher.close();
    assert.equal(existsSync(lockDir(ns)), false, `${lockDir(ns)} left behind`);
  });

  it('a leaver that found the lock busy does not re-create the lock file the last one out removed (its retry would leave it if it then timed out)', async () => {
    const ns = namespace('retry');
    const names = localNames(ns, TMP);
    // Another process's section: both locks held.
    const release = tryNamespaceLock({ ...names, lockTimeout: 0 });
    assert.ok(release !== undefined);
    // A wool publisher that will hold wool's flock for a while after that.
    const wool = new FileLock(names.lockPath);
    try {
      const subscription = localDiscovery(ns, { lockTimeout: 300, pollInterval: false }).events().subscribe();
      subscription.unsubscribe(); // the last one out: the lock is busy, it retries in the background
      // The holder was the last one out: under the lock, it removes the
      // namespace (woolrx's lock file, wool's, the notification folder)...
      assert.equal(cleanupNamespace(names), true);
      // ...and a wool publisher takes wool's flock (a new lock file) as it lets go.
      assert.equal(wool.tryLock(), true, "wool's flock taken by the wool publisher");
      release();
      removeLockParent(names);
      assert.equal(existsSync(names.lockDirPath), false);
      // The retry (5 ms later) must not make them again: past its lock
      // timeout (wool's flock stays taken) it would leave them behind.
      await sleep(700);
      assert.equal(existsSync(names.lockDirPath), false, `${names.lockDirPath} re-created by the retry`);
    } finally {
      wool.close();
      rmSync(names.lockPath, { force: true });
    }
  });
});
