// The namespace lock against a real holder in another process.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { localDiscovery, shortHash } from '../../../src/backends/local/index.js';
import { assertClean, Child, isLockTimeout, killChildren, makeWorker, uniqueNamespace, waitFor, strayTestFiles } from './helpers.js';

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
      localDiscovery(namespace, { lockTimeout: 100, pollInterval: false }).publisher().publish('worker-added', makeWorker()),
      isLockTimeout(namespace, 100),
      'held while the holder lives',
    );
    await child.kill('SIGKILL');
    assert.ok(existsSync(join('/dev/shm', `woolrx-lock-${shortHash(namespace)}`, 'lock')), 'the dead holder left its lock file');
    const started = performance.now();
    await publisher.publish('worker-added', w);
    const waited = performance.now() - started;
    assert.ok(waited < 1_000, `took the dead holder's lock after ${waited} ms`);
    await publisher.close();
  });
});
