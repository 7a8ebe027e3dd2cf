// Subscriber behaviour across real processes and real shared memory.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  writeFileSync,
  writeSync,
  closeSync,
  utimesSync,
} from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { blockName } from '../../../src/backends/local/block/blockFile.js';
import { localDiscovery } from '../../../src/backends/local/index.js';
import { shortHash } from '../../../src/backends/local/names/shortHash.js';
import type { DiscoveryEvent } from '../../../src/events/types.js';
import { sameWorker } from '../../../src/model/sameWorker.js';
import type { WorkerInfo } from '../../../src/model/types.js';
import { workerInfo } from '../../../src/model/workerInfo.js';
import {
  assertClean,
  Child,
  CHILDREN,
  killChildren,
  makeWorker,
  Recorder,
  TMP,
  uniqueNamespace,
  waitFor,
  strayTestFiles,
} from './helpers.js';

const used: { namespace: string; uids: string[] }[] = [];
function track(namespace: string, ...uids: string[]): void {
  const entry = used.find((u) => u.namespace === namespace);
  if (entry) entry.uids.push(...uids);
  else used.push({ namespace, uids });
}

after(async () => {
  await killChildren();
  for (const { namespace, uids } of used) await assertClean(namespace, uids);
  assert.deepEqual(strayTestFiles(), [], 'nothing of these tests left in /dev/shm or the temp directory');
});

async function publisherChild(namespace: string, options: object = {}): Promise<Child> {
  const child = new Child('publisher.ts', [namespace, JSON.stringify({ pollInterval: false, ...options })]);
  await waitFor(() => child.messages.length > 0, 'publisher child ready');
  return child;
}

async function subscriberChild(
  namespace: string,
  options: object = {},
): Promise<{ child: Child; events: () => DiscoveryEvent[] }> {
  const child = new Child('subscriber.ts', [namespace, JSON.stringify(options)]);
  await waitFor(() => child.messages.some((m) => (m as { ready?: boolean }).ready), 'subscriber child ready');
  const events = () =>
    child.messages.flatMap((m) =>
      (m as { event?: DiscoveryEvent }).event ? [(m as { event: DiscoveryEvent }).event] : [],
    );
  return { child, events };
}

describe('local subscriber', () => {
  it('sees a publisher in another process: initial burst, then deltas; a subscriber process too', async () => {
    const namespace = uniqueNamespace('xproc');
    const a = makeWorker({ tags: ['gpu'], extra: { zone: 'eu-1' }, secure: true });
    const b = makeWorker();
    track(namespace, a.uid, b.uid);
    const publisher = await publisherChild(namespace);
    await publisher.call({ op: 'publish', type: 'worker-added', worker: a });
    const discovery = localDiscovery(namespace, { pollInterval: false });
    const recorder = new Recorder(discovery.events());
    // The initial burst is synchronous, at subscription.
    assert.deepEqual(
      recorder.events.map((e) => [e.type, e.worker.uid]),
      [['worker-added', a.uid]],
    );
    assert.deepEqual(recorder.workers.get(a.uid), a, 'every field intact');
    const remote = await subscriberChild(namespace, { pollInterval: false });
    await waitFor(() => remote.events().length === 1, 'remote initial burst');
    await publisher.call({ op: 'publish', type: 'worker-added', worker: b });
    await publisher.call({ op: 'publish', type: 'worker-updated', worker: workerInfo({ ...a, version: '2.0.0' }) });
    await publisher.call({ op: 'publish', type: 'worker-dropped', worker: b });
    // Per worker, events come in publish order (changes to different workers
    // found by one scan may come in any order).
    const perWorker = (events: DiscoveryEvent[]) => ({
      a: events.filter((e) => e.worker.uid === a.uid).map((e) => e.type),
      b: events.filter((e) => e.worker.uid === b.uid).map((e) => e.type),
    });
    const expected = { a: ['worker-added', 'worker-updated'], b: ['worker-added', 'worker-dropped'] };
    await waitFor(() => recorder.events.length === 4, 'local deltas');
    assert.deepEqual(perWorker(recorder.events), expected);
    assert.equal(recorder.workers.get(a.uid)?.version, '2.0.0');
    await waitFor(() => remote.events().length === 4, 'remote deltas');
    assert.deepEqual(perWorker(remote.events()), expected);
    await publisher.call({ op: 'exit' });
    await publisher.exited;
    await waitFor(() => recorder.workers.size === 0, 'withdrawal on close');
    await remote.child.call({ op: 'stop' });
    assert.equal(await remote.child.exited, 0);
    recorder.stop();
  });

  it('waits for a namespace that does not exist yet', async () => {
    const namespace = uniqueNamespace('late');
    const w = makeWorker();
    track(namespace, w.uid);
    const recorder = new Recorder(localDiscovery(namespace, { pollInterval: false }).events());
    assert.equal(recorder.error, undefined);
    assert.equal(existsSync(join('/dev/shm', shortHash(namespace))), false);
    const publisher = await publisherChild(namespace);
    await publisher.call({ op: 'publish', type: 'worker-added', worker: w });
    await waitFor(() => recorder.workers.has(w.uid), 'worker of the late namespace');
    await publisher.call({ op: 'exit' });
    await waitFor(() => recorder.workers.size === 0, 'dropped');
    recorder.stop();
  });

  it('reports a SIGKILLed worker process as dropped and reclaims its slot and block', async () => {
    const namespace = uniqueNamespace('sigkill');
    const publisher = await publisherChild(namespace);
    const w = makeWorker({ pid: publisher.pid });
    track(namespace, w.uid);
    const discovery = localDiscovery(namespace, { pollInterval: 100 });
    const recorder = new Recorder(discovery.events(), discovery.diagnostics);
    await publisher.call({ op: 'publish', type: 'worker-added', worker: w });
    await waitFor(() => recorder.workers.has(w.uid), 'added');
    await publisher.kill('SIGKILL');
    await waitFor(() => recorder.of('worker-dropped', w.uid).length === 1, 'dropped after SIGKILL', 5_000);
    await waitFor(() => !existsSync(join('/dev/shm', blockName(w.uid))), 'block reclaimed');
    const table = readFileSync(join('/dev/shm', shortHash(namespace))).subarray(16);
    assert.ok(table.equals(Buffer.alloc(table.length)), 'slot reclaimed');
    assert.ok(recorder.diagnostics.some((d) => d.kind === 'recovered' && d.uid === w.uid));
    recorder.stop();
  });

  it('drops a ghost registered with a pid that is already gone, right after the initial burst', async () => {
    const namespace = uniqueNamespace('ghost');
    const gone = spawn(process.execPath, ['-e', '0']);
    const pid = gone.pid ?? 0;
    await new Promise((resolve) => gone.once('exit', resolve));
    const ghost = makeWorker({ pid });
    track(namespace, ghost.uid);
    const publisher = localDiscovery(namespace, { pollInterval: false }).publisher();
    await publisher.publish('worker-added', ghost);
    const recorder = new Recorder(localDiscovery(namespace, { pollInterval: false }).events());
    await waitFor(() => recorder.of('worker-dropped', ghost.uid).length === 1, 'ghost dropped', 5_000);
    assert.equal(recorder.events[0]?.type, 'worker-added');
    recorder.stop();
    await publisher.close();
  });

  it('sees a refresh by re-add from a second process as one worker-updated, in one slot', async () => {
    const namespace = uniqueNamespace('readd');
    const w = makeWorker();
    track(namespace, w.uid);
    const first = await publisherChild(namespace);
    const second = await publisherChild(namespace);
    const recorder = new Recorder(localDiscovery(namespace, { pollInterval: false }).events());
    await first.call({ op: 'publish', type: 'worker-added', worker: w });
    await waitFor(() => recorder.workers.has(w.uid), 'added');
    await second.call({ op: 'publish', type: 'worker-added', worker: workerInfo({ ...w, address: '127.0.0.1:4242' }) });
    await waitFor(() => recorder.of('worker-updated', w.uid).length === 1, 'updated');
    const table = readFileSync(join('/dev/shm', shortHash(namespace))).subarray(16);
    let taken = 0;
    for (let i = 0; i < table.length; i += 16)
      if (table.readBigUInt64LE(i) !== 0n || table.readBigUInt64LE(i + 8) !== 0n) taken += 1;
    assert.equal(taken, 1);
    assert.equal(recorder.workers.get(w.uid)?.address, '127.0.0.1:4242');
    await first.call({ op: 'exit' });
    await second.call({ op: 'exit' });
    await waitFor(() => recorder.workers.size === 0, 'withdrawn');
    assert.equal(recorder.of('worker-added', w.uid).length, 1);
    recorder.stop();
  });

  // wool's test_publish_should_keep_worker_when_readd_subprocess_exits, on woolrx.
  it('keeps a worker re-announced by a short-lived second process after that process closes and exits', async () => {
    const namespace = uniqueNamespace('readd-exit');
    const w = makeWorker({ version: '1.0' });
    track(namespace, w.uid);
    const discovery = localDiscovery(namespace, { pollInterval: 100 });
    const owner = discovery.publisher();
    await owner.publish('worker-added', w);
    const reannouncer = await publisherChild(namespace);
    await reannouncer.call({ op: 'publish', type: 'worker-added', worker: workerInfo({ ...w, version: '2.0' }) });
    await reannouncer.call({ op: 'exit' }); // closes its publisher, then exits
    assert.equal(await reannouncer.exited, 0);
    const recorder = new Recorder(discovery.events());
    await waitFor(() => recorder.workers.get(w.uid)?.version === '2.0', 'the worker at the bumped version');
    // Long enough for a poll tick (and its liveness sweep): still there.
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.deepEqual(
      recorder.events.map((event) => `${event.type} ${event.worker.version}`),
      ['worker-added 2.0'],
    );
    assert.ok(existsSync(join('/dev/shm', blockName(w.uid))), 'its block stays');
    await owner.close();
    await waitFor(() => recorder.workers.size === 0, 'withdrawn by its registrant');
    recorder.stop();
  });

  it('skips a corrupt block, reports it on diagnostics, never errors, and recovers', async () => {
    const namespace = uniqueNamespace('corrupt');
    const w = makeWorker();
    const other = makeWorker();
    track(namespace, w.uid, other.uid);
    const publisher = await publisherChild(namespace);
    await publisher.call({ op: 'publish', type: 'worker-added', worker: w });
    const discovery = localDiscovery(namespace, { pollInterval: 100 });
    const recorder = new Recorder(discovery.events(), discovery.diagnostics);
    await waitFor(() => recorder.workers.has(w.uid), 'added');
    const path = join('/dev/shm', blockName(w.uid));
    const fd = openSync(path, 'r+');
    const notify = join(TMP, `wool-${namespace}`, 'notify');
    try {
      // 1. An impossible length.
      const bad = Buffer.alloc(4);
      bad.writeUInt32LE(100_000, 0);
      writeSync(fd, bad, 0, 4, 0);
      utimesSync(notify, new Date(), new Date());
      await waitFor(
        () => recorder.diagnostics.some((d) => d.kind === 'malformed-record' && /length/.test(d.message)),
        'length diagnostic',
      );
      // 2. Bytes that are not protobuf.
      const junk = Buffer.from([5, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff]);
      writeSync(fd, junk, 0, junk.length, 0);
      utimesSync(notify, new Date(), new Date());
      await waitFor(
        () => recorder.diagnostics.filter((d) => d.kind === 'malformed-record').length >= 2,
        'decode diagnostic',
      );
    } finally {
      closeSync(fd);
    }
    // The stream lives on: other workers still flow, the bad one is not dropped or updated.
    await publisher.call({ op: 'publish', type: 'worker-added', worker: other });
    await waitFor(() => recorder.workers.has(other.uid), 'other worker after corruption');
    assert.equal(recorder.error, undefined);
    assert.equal(recorder.of('worker-updated', w.uid).length, 0);
    const reports = recorder.diagnostics.length;
    await new Promise((resolve) => setTimeout(resolve, 350)); // three polls retry the same bad bytes
    assert.equal(recorder.diagnostics.length, reports, 'the same bad bytes are reported once');
    // Recovery: a valid record again.
    await publisher.call({ op: 'publish', type: 'worker-updated', worker: workerInfo({ ...w, version: '9' }) });
    await waitFor(() => recorder.workers.get(w.uid)?.version === '9', 'recovered');
    assert.deepEqual(
      recorder.events.filter((e) => e.worker.uid === w.uid).map((e) => e.type),
      ['worker-added', 'worker-updated'],
    );
    await publisher.call({ op: 'exit' });
    await waitFor(() => recorder.workers.size === 0, 'withdrawn');
    recorder.stop();
  });

  it('lets a process that subscribed and unsubscribed exit on its own', async () => {
    const namespace = uniqueNamespace('idle');
    const w = makeWorker();
    track(namespace, w.uid);
    const publisher = localDiscovery(namespace, { pollInterval: false }).publisher();
    await publisher.publish('worker-added', w);
    const child = spawn(process.execPath, ['--import', 'tsx', join(CHILDREN, 'idleSubscriber.ts'), namespace], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const code = await new Promise<number | null>((resolve, reject) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`subscriber process still alive 10 s after unsubscribing (output: ${output})`));
      }, 10_000);
      child.once('exit', (status) => {
        clearTimeout(timer);
        resolve(status);
      });
    });
    assert.equal(code, 0);
    assert.match(output, /event worker-added\nunsubscribed\n/);
    await publisher.close();
  });

  it('a subscriber frozen for more than a journal of changes (SIGSTOP) catches up with the exact state', async () => {
    const namespace = uniqueNamespace('overrun');
    const { child, events } = await subscriberChild(namespace, { pollInterval: false });
    const workers = Array.from({ length: 300 }, () => makeWorker());
    track(namespace, ...workers.map((w) => w.uid));
    const publisher = localDiscovery(namespace, { capacity: 512, pollInterval: false }).publisher();
    await publisher.publish('worker-added', workers[0] as WorkerInfo);
    await waitFor(() => events().length === 1, 'first worker');
    child.process.kill('SIGSTOP');
    const expected = new Map<string, WorkerInfo>();
    try {
      // 300 adds, 150 updates, 100 drops: more than the journal's 512 records.
      for (const w of workers) {
        await publisher.publish('worker-added', w);
        expected.set(w.uid, w);
      }
      for (const w of workers.slice(0, 150)) {
        const updated = workerInfo({ ...w, version: '2' });
        await publisher.publish('worker-updated', updated);
        expected.set(w.uid, updated);
      }
      for (const w of workers.slice(100, 200)) {
        await publisher.publish('worker-dropped', w);
        expected.delete(w.uid);
      }
    } finally {
      child.process.kill('SIGCONT');
    }
    const state = () => {
      const known = new Map<string, WorkerInfo>();
      for (const event of events()) {
        const previous = known.get(event.worker.uid);
        if (event.type === 'worker-added') assert.equal(previous, undefined, `added twice: ${event.worker.uid}`);
        else assert.ok(previous, `${event.type} of an unknown worker ${event.worker.uid}`);
        if (event.type === 'worker-updated')
          assert.ok(previous && !sameWorker(previous, event.worker), 'spurious update');
        if (event.type === 'worker-dropped') known.delete(event.worker.uid);
        else known.set(event.worker.uid, event.worker);
      }
      return known;
    };
    await waitFor(
      () => {
        const known = state();
        return (
          known.size === expected.size &&
          [...expected].every(([uid, w]) => sameWorker(known.get(uid) ?? w, w) && known.has(uid))
        );
      },
      'the frozen subscriber to converge',
      15_000,
    );
    await publisher.close();
    await waitFor(() => state().size === 0, 'withdrawal');
    await child.call({ op: 'stop' });
    assert.equal(await child.exited, 0);
  });

  it('works without a journal when the journal file there has another format (an older woolrx): changes are found by scanning', async () => {
    const namespace = uniqueNamespace('oldjournal');
    const a = makeWorker();
    const b = makeWorker();
    track(namespace, a.uid, b.uid);
    const lockDir = join('/dev/shm', `woolrx-lock-${shortHash(namespace)}`);
    mkdirSync(lockDir, { recursive: true, mode: 0o700 });
    const foreign = Buffer.alloc(4096);
    foreign.write('WRXJ', 0, 'latin1'); // format 1's magic
    writeFileSync(join(lockDir, 'journal'), foreign, { mode: 0o600 });
    const discovery = localDiscovery(namespace, { pollInterval: false });
    const recorder = new Recorder(discovery.events(), discovery.diagnostics);
    const publisher = await publisherChild(namespace);
    await publisher.call({ op: 'publish', type: 'worker-added', worker: a });
    await publisher.call({ op: 'publish', type: 'worker-added', worker: b });
    await waitFor(() => recorder.workers.size === 2, 'both workers, without a journal');
    await publisher.call({ op: 'publish', type: 'worker-updated', worker: workerInfo({ ...a, version: '2' }) });
    await waitFor(() => recorder.workers.get(a.uid)?.version === '2', 'the update, without a journal');
    await publisher.call({ op: 'publish', type: 'worker-dropped', worker: b });
    await waitFor(() => !recorder.workers.has(b.uid), 'the drop, without a journal');
    assert.deepEqual(
      readFileSync(join(lockDir, 'journal')).subarray(0, 4).toString('latin1'),
      'WRXJ',
      'the foreign file is left alone',
    );
    assert.deepEqual(
      recorder.diagnostics.filter((d) => d.kind === 'malformed-record'),
      [],
    );
    await publisher.call({ op: 'exit' });
    await waitFor(() => recorder.workers.size === 0, 'withdrawal');
    recorder.stop();
  });

  it('filters: events(predicate) turns workers entering and leaving the filter into added and dropped', async () => {
    const namespace = uniqueNamespace('filter');
    const w = makeWorker();
    track(namespace, w.uid);
    const discovery = localDiscovery(namespace, { pollInterval: false });
    const recorder = new Recorder(discovery.events((worker) => worker.tags.includes('gpu')));
    const publisher = discovery.publisher();
    await publisher.publish('worker-added', w);
    await publisher.publish('worker-updated', workerInfo({ ...w, tags: ['gpu'] }));
    await waitFor(() => recorder.events.length === 1, 'enters the filter');
    await publisher.publish('worker-updated', w);
    await waitFor(() => recorder.events.length === 2, 'leaves the filter');
    assert.deepEqual(
      recorder.events.map((e) => e.type),
      ['worker-added', 'worker-dropped'],
    );
    recorder.stop();
    await publisher.close();
  });
});
