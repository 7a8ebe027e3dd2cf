// Real processes against a real etcd: a publisher killed with SIGKILL has
// its workers dropped when its lease expires; a worker re-announced by a
// short-lived process outlives that process; a process that subscribes and
// unsubscribes exits on its own.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { etcdDiscovery } from '../../../src/backends/etcd/etcdDiscovery.js';
import { startEtcd, type EtcdCluster } from './etcdHarness.js';
import { makeWorker, Recorder, uniqueNamespace, waitFor } from './helpers.js';

const CHILDREN = join(dirname(fileURLToPath(import.meta.url)), 'children');
const children = new Set<ChildProcess>();

function run(
  script: string,
  args: string[],
): { child: ChildProcess; output: () => string; exited: Promise<number | null> } {
  const child = spawn(process.execPath, ['--import', 'tsx', join(CHILDREN, script), ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => {
    child.once('exit', (code) => {
      children.delete(child);
      resolve(code);
    });
  });
  return { child, output: () => output, exited };
}

describe('etcd backend with real processes', { timeout: 60_000 }, () => {
  let etcd: EtcdCluster;
  before(async () => {
    etcd = await startEtcd();
  });
  after(async () => {
    for (const child of children) child.kill('SIGKILL');
    await etcd.dispose();
  });

  it('drops the workers of a SIGKILLed publisher when its lease expires (within ttl + 1 s)', async () => {
    const namespace = uniqueNamespace('kill');
    const ttl = 2;
    const discovery = etcdDiscovery(namespace, { endpoints: etcd.endpoints });
    const recorder = new Recorder(discovery.events());
    const publisher = run('publisher.ts', [etcd.endpoints.join(','), namespace, String(ttl), '3']);
    const line = await waitFor(
      () => /^\[.*\]$/m.exec(publisher.output())?.[0],
      () => `the child's uids: ${publisher.output()}`,
      20_000,
    );
    const uids = JSON.parse(line) as string[];
    await waitFor(() => uids.every((uid) => recorder.workers.has(uid)), 'the three workers');
    // A survivor from this process, to show only the dead publisher's workers go.
    const survivorPublisher = discovery.publisher();
    const survivor = makeWorker();
    await survivorPublisher.publish('worker-added', survivor);
    // Let a keep-alive happen, so the lease was renewed at least once before the kill.
    await new Promise((resolve) => setTimeout(resolve, 800));
    publisher.child.kill('SIGKILL');
    await publisher.exited;
    const killed = Date.now();
    await waitFor(() => uids.every((uid) => !recorder.workers.has(uid)), 'the drops', (ttl + 3) * 1000);
    const took = Date.now() - killed;
    console.log(`# dropped ${took} ms after SIGKILL (ttl ${ttl} s)`);
    assert.ok(took <= (ttl + 1) * 1000, `dropped after ${took} ms, more than ttl + 1 s`);
    assert.ok(recorder.workers.has(survivor.uid), 'the other publisher keeps its worker');
    for (const uid of uids) assert.deepEqual(recorder.history(uid), ['worker-added@1', 'worker-dropped@1']);
    recorder.assertConsistent();
    recorder.unsubscribe();
    await survivorPublisher.close();
  });

  // wool's test_publish_should_keep_worker_when_readd_subprocess_exits, on etcd.
  it('keeps a worker re-announced by a short-lived process when that process exits or is killed', async () => {
    const namespace = uniqueNamespace('readd');
    const ttl = 2;
    const discovery = etcdDiscovery(namespace, { endpoints: etcd.endpoints, ttl });
    const recorder = new Recorder(discovery.events());
    const registrant = discovery.publisher();
    const a = makeWorker();
    await registrant.publish('worker-added', a);
    await waitFor(() => recorder.workers.has(a.uid), 'A added');

    const closing = run('readd.ts', [
      etcd.endpoints.join(','),
      namespace,
      String(ttl),
      JSON.stringify({ ...a, version: '2' }),
      'close',
    ]);
    assert.equal(await closing.exited, 0, closing.output());
    assert.match(closing.output(), /^readded$/m);
    const killed = run('readd.ts', [
      etcd.endpoints.join(','),
      namespace,
      String(ttl),
      JSON.stringify({ ...a, version: '3' }),
      'stay',
    ]);
    await waitFor(
      () => killed.output().includes('readded'),
      () => `the second re-announcement: ${killed.output()}`,
      20_000,
    );
    killed.child.kill('SIGKILL');
    await killed.exited;
    // Past the killed process's lease expiry: A is still registered, with the latest metadata.
    await new Promise((resolve) => setTimeout(resolve, (ttl + 1) * 1000));
    assert.deepEqual(recorder.history(a.uid), ['worker-added@1', 'worker-updated@2', 'worker-updated@3']);
    assert.ok(recorder.workers.has(a.uid));

    await registrant.close();
    await waitFor(() => !recorder.workers.has(a.uid), 'A dropped when its registrant closes');
    assert.deepEqual(recorder.history(a.uid).at(-1), 'worker-dropped@3');
    recorder.assertConsistent();
    recorder.unsubscribe();
  });

  it('a process that publishes and closes, subscribes and unsubscribes, exits on its own', async () => {
    const namespace = uniqueNamespace('exit');
    const child = run('subscribeOnce.ts', [etcd.endpoints.join(','), namespace, '1', 'no']);
    // The subscription is live in the child: publish from here, then it unsubscribes.
    const publisher = etcdDiscovery(namespace, { endpoints: etcd.endpoints }).publisher();
    await waitFor(
      () => child.output().includes('subscribed'),
      () => `the child to subscribe: ${child.output()}`,
      20_000,
    );
    await publisher.publish('worker-added', makeWorker());
    const timeout = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), 20_000).unref());
    const code = await Promise.race([child.exited, timeout]);
    assert.equal(code, 0, `the child did not exit on its own; output:\n${child.output()}`);
    assert.match(child.output(), /event worker-added/);
    assert.match(child.output(), /unsubscribed/);
    await publisher.close();

    const second = run('subscribeOnce.ts', [etcd.endpoints.join(','), uniqueNamespace('exit'), '1', 'yes']);
    const code2 = await Promise.race([second.exited, timeout]);
    assert.equal(code2, 0, `the publishing child did not exit on its own; output:\n${second.output()}`);
    assert.match(second.output(), /published\nsubscribed\nevent worker-added .*\nunsubscribed\nclosed/);
  });
});
