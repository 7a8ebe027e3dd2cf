// /dev/shm leaks, each reproduced in isolation with real
// processes: the real wool (test/interop/woolPeerProcess.ts), woolrx's lock
// through a lock-holding child.
import { killWoolPeers, startWoolPeer, withdrawWoolPeer, type WoolPeer } from '../interop/woolPeerProcess.js';
import assert from 'node:assert/strict';
import { existsSync, rmSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { blockName } from '../../src/backends/local/block/blockFile.js';
import { localDiscovery, shortHash } from '../../src/backends/local/index.js';
import {
  assertClean,
  Child,
  isLockTimeout,
  killChildren,
  makeWorker,
  Recorder,
  strayTestFiles,
  TMP,
  uniqueNamespace,
  waitFor,
} from '../backends/local/helpers.js';

const used: { namespace: string; uids: string[]; wool?: boolean }[] = [];

after(async () => {
  killWoolPeers();
  await killChildren();
  for (const { namespace, uids, wool } of used) {
    // wool's flock file (in the temp directory, not /dev/shm) is wool's to
    // leave behind, and so is its notification directory where wool left last.
    rmSync(join(TMP, `wool-lock-${shortHash(namespace)}`), { force: true });
    if (wool === true) rmSync(join(TMP, `wool-${namespace}`), { recursive: true, force: true });
    await assertClean(namespace, uids);
  }
  assert.deepEqual(strayTestFiles(), [], 'nothing of these tests left in /dev/shm or the temp directory');
});

const lockDir = (namespace: string): string => join('/dev/shm', `woolrx-lock-${shortHash(namespace)}`);

/** A wool process that creates the namespace's segment (and so unlinks it when it leaves), registering one worker. */
async function woolPublish(namespace: string, uid: string): Promise<WoolPeer> {
  return startWoolPeer(namespace, makeWorker({ uid, address: '127.0.0.1:7100', version: '1' }));
}

describe('/dev/shm holds nothing of woolrx once everyone left', () => {
  it("wool leaves last: woolrx's journal (woolrx-lock-<hash>/journal) does not stay behind", async () => {
    const namespace = uniqueNamespace('woollast');
    const rx = makeWorker();
    const woolUid = makeWorker().uid;
    used.push({ namespace, uids: [rx.uid, woolUid], wool: true });
    const owner = await woolPublish(namespace, woolUid);
    const discovery = localDiscovery(namespace, { pollInterval: false });
    const recorder = new Recorder(discovery.events());
    const publisher = discovery.publisher();
    await publisher.publish('worker-added', rx);
    await waitFor(() => recorder.workers.has(rx.uid), 'woolrx worker seen');
    assert.ok(existsSync(join(lockDir(namespace), 'journal')), 'the journal exists while woolrx publishes');
    await publisher.close();
    recorder.stop();
    // wool's segment still holds wool's worker: it stays, and so does its owner.
    assert.ok(existsSync(join('/dev/shm', shortHash(namespace))));
    await withdrawWoolPeer(owner);
    assert.equal(existsSync(join('/dev/shm', shortHash(namespace))), false, "wool's owner unlinked its segment");
    assert.equal(existsSync(lockDir(namespace)), false, `${lockDir(namespace)} left behind`);
  });

  it('a woolrx subscriber still reading keeps the journal; the last woolrx one out before wool removes it', async () => {
    const namespace = uniqueNamespace('woollast2');
    const rx = makeWorker();
    const woolUid = makeWorker().uid;
    used.push({ namespace, uids: [rx.uid, woolUid], wool: true });
    const owner = await woolPublish(namespace, woolUid);
    const discovery = localDiscovery(namespace, { pollInterval: false });
    const early = new Recorder(discovery.events());
    const publisher = discovery.publisher();
    await publisher.publish('worker-added', rx);
    await waitFor(() => early.workers.has(rx.uid), 'woolrx worker seen');
    await publisher.close();
    await waitFor(() => !early.workers.has(rx.uid), 'woolrx worker withdrawn');
    assert.ok(existsSync(join(lockDir(namespace), 'journal')), 'kept while a woolrx subscriber follows it');
    // The journal still works for a publisher that comes next.
    const again = discovery.publisher();
    await again.publish('worker-added', rx);
    await waitFor(() => early.workers.has(rx.uid), 'woolrx worker seen again');
    await again.close();
    await waitFor(() => !early.workers.has(rx.uid), 'woolrx worker withdrawn again');
    early.stop();
    assert.equal(
      existsSync(lockDir(namespace)),
      false,
      `${lockDir(namespace)} left behind by the last woolrx subscriber`,
    );
    await withdrawWoolPeer(owner);
  });

  it("a publisher whose segment was removed from outside unlinks its worker's block on close", async () => {
    const namespace = uniqueNamespace('segremoved');
    const worker = makeWorker();
    used.push({ namespace, uids: [worker.uid] });
    const publisher = localDiscovery(namespace, { pollInterval: false }).publisher();
    await publisher.publish('worker-added', worker);
    const block = join('/dev/shm', blockName(worker.uid));
    assert.ok(existsSync(block));
    unlinkSync(join('/dev/shm', shortHash(namespace))); // as wool's owner does at exit
    await publisher.close();
    assert.equal(existsSync(block), false, `block ${block} left behind`);
  });

  it('a LockTimeoutError then close() leaves no empty woolrx-lock-<hash>/ directory', async () => {
    const namespace = uniqueNamespace('locktimeout');
    const worker = makeWorker();
    used.push({ namespace, uids: [worker.uid] });
    const holder = new Child('lockHolder.ts', [namespace]);
    await waitFor(() => holder.messages.length > 0, 'lock held', 20_000);
    const publisher = localDiscovery(namespace, { pollInterval: false, lockTimeout: 100 }).publisher();
    await assert.rejects(publisher.publish('worker-added', worker), isLockTimeout(namespace, 100));
    await holder.call({ op: 'release' });
    assert.equal(await holder.exited, 0);
    await publisher.close();
    assert.equal(existsSync(lockDir(namespace)), false, `${lockDir(namespace)} left behind`);
  });
});
