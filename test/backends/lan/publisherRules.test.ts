/**
 * lanDiscovery publisher rules and lifecycle, with real mDNS inside one
 * network namespace that has only a loopback (so no default route): the
 * advertised-host rules, TXT size limit, update of an unknown worker,
 * socket failures as typed errors, and processes exiting by themselves
 * once everything is released. This file only orchestrates.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { workerInfo } from '../../../src/model/workerInfo.js';
import { Agent } from './agent.js';
import { Netns } from './netns.js';

const NAMESPACE = 'publisher-rules';

function worker(address: string, init: { version?: string; extra?: Record<string, string> } = {}) {
  return workerInfo({ uid: randomUUID(), address, pid: 21, version: init.version ?? '1', extra: init.extra ?? {} });
}

describe('lanDiscovery publisher rules and lifecycle', () => {
  let netns: Netns;
  let subscriber: Agent;
  let publisher: Agent;
  const agents: Agent[] = [];

  before(async () => {
    netns = Netns.create('rules');
    subscriber = await Agent.start(netns);
    publisher = await Agent.start(netns);
    agents.push(subscriber, publisher);
    subscriber.send({ op: 'subscribe', id: 's', namespace: NAMESPACE });
    publisher.send({ op: 'publisher', id: 'p', namespace: NAMESPACE, options: { probe: false } });
    await subscriber.waitFor((r) => r.ev === 'subscribed', 'subscribed');
    await publisher.waitFor((r) => r.ev === 'publisher', 'publisher');
  });

  after(() => {
    for (const agent of agents) agent.kill();
    netns?.dispose();
  });

  const seen = (uid: string) => (r: { ev: string; worker?: { uid: string } }) =>
    r.ev === 'event' && r.worker?.uid === uid;

  it('a loopback host without advertiseHost is advertised as is, with a warning on diagnostics', async () => {
    const w = worker('127.0.0.1:7301');
    await publisher.ok({ op: 'publish', id: 'p', type: 'worker-added', worker: w });
    const added = await subscriber.waitFor(seen(w.uid), 'loopback worker');
    assert.equal(added.worker?.address, '127.0.0.1:7301');
    const warning = publisher.reports.find((r) => r.ev === 'diag' && r.kind === 'warning' && r.uid === w.uid);
    assert.ok(warning, 'a warning diagnostic');
    assert.match(warning.message ?? '', /loopback.*advertiseHost/);
  });

  it('a wildcard host with no default route rejects with AdvertiseHostError naming the fix', async () => {
    for (const address of ['0.0.0.0:7302', '[::]:7302']) {
      const done = await publisher.call({ op: 'publish', id: 'p', type: 'worker-added', worker: worker(address) });
      assert.equal(done.error?.name, 'AdvertiseHostError', address);
      assert.equal(done.error?.code, 'WOOLRX_LAN_ADVERTISE_HOST');
      assert.match(done.error?.message ?? '', /advertiseHost.*--advertise-host/);
    }
  });

  it('an advertiseHost function is called once per publisher, lazily, and its address is advertised', async () => {
    const agent = await Agent.start(netns);
    agents.push(agent);
    agent.send({
      op: 'publisher',
      id: 'f',
      namespace: NAMESPACE,
      options: { probe: false, advertiseHostFn: '127.0.0.9' },
    });
    await agent.waitFor((r) => r.ev === 'publisher', 'publisher');
    await sleep(50);
    assert.equal(
      agent.reports.filter((r) => r.ev === 'advertise-called').length,
      0,
      'not called before the first publish',
    );
    const workers = [worker('0.0.0.0:7303'), worker('10.1.2.3:7304'), worker('127.0.0.1:7305')];
    await agent.ok({ op: 'publishMany', id: 'f', type: 'worker-added', workers });
    for (const [i, w] of workers.entries()) {
      const added = await subscriber.waitFor(seen(w.uid), `worker ${i}`);
      assert.equal(added.worker?.address, `127.0.0.9:${7303 + i}`);
    }
    assert.equal(agent.reports.filter((r) => r.ev === 'advertise-called').length, 1);
    assert.ok(
      !agent.reports.some((r) => r.ev === 'diag' && /loopback/.test(r.message ?? '')),
      'no loopback warning with advertiseHost',
    );
    await agent.ok({ op: 'close', id: 'f' });
    agent.end();
    assert.equal((await agent.exited).code, 0);
  });

  it('a TXT entry over 255 bytes rejects with TxtEntryTooLongError naming the key, and publishes nothing', async () => {
    const w = worker('127.0.0.1:7306', { extra: { blob: 'x'.repeat(260) } });
    const done = await publisher.call({ op: 'publish', id: 'p', type: 'worker-added', worker: w });
    assert.equal(done.error?.name, 'TxtEntryTooLongError');
    assert.equal(done.error?.key, 'extra');
    assert.match(done.error?.message ?? '', /"extra"/);
    const sentinel = worker('127.0.0.1:7307');
    await publisher.ok({ op: 'publish', id: 'p', type: 'worker-added', worker: sentinel });
    await subscriber.waitFor(seen(sentinel.uid), 'sentinel');
    assert.equal(subscriber.reports.find(seen(w.uid)), undefined);
  });

  it('worker-updated of a worker this publisher did not register rejects with WorkerNotFoundError (the default); worker-dropped of one is a no-op', async () => {
    const w = worker('127.0.0.1:7308');
    await publisher.ok({ op: 'publish', id: 'p', type: 'worker-dropped', worker: w });
    const done = await publisher.call({ op: 'publish', id: 'p', type: 'worker-updated', worker: w });
    assert.equal(done.error?.name, 'WorkerNotFoundError');
    assert.equal(done.error?.code, 'WOOLRX_WORKER_NOT_FOUND');
    // Nor may it update another publisher's worker: it is not that worker's responder.
    const agent = await Agent.start(netns);
    agents.push(agent);
    agent.send({ op: 'publisher', id: 'o', namespace: NAMESPACE, options: { probe: false } });
    await agent.waitFor((r) => r.ev === 'publisher', 'publisher');
    const owned = worker('127.0.0.1:7312');
    await agent.ok({ op: 'publish', id: 'o', type: 'worker-added', worker: owned });
    await subscriber.waitFor(seen(owned.uid), 'owned worker');
    const foreign = await publisher.call({
      op: 'publish',
      id: 'p',
      type: 'worker-updated',
      worker: { ...owned, version: '2' },
    });
    assert.equal(foreign.error?.name, 'WorkerNotFoundError');
    await publisher.ok({ op: 'publish', id: 'p', type: 'worker-dropped', worker: owned }); // not its own: a no-op
    const sentinel = worker('127.0.0.1:7313');
    await publisher.ok({ op: 'publish', id: 'p', type: 'worker-added', worker: sentinel });
    await subscriber.waitFor(seen(sentinel.uid), 'sentinel');
    assert.equal(subscriber.reports.find(seen(w.uid)), undefined, 'the rejected update registered nothing');
    assert.deepEqual(
      subscriber.reports.filter(seen(owned.uid)).map((r) => `${r.type} ${r.worker?.version}`),
      ['worker-added 1'],
      "the other publisher's worker is unchanged",
    );
    await agent.ok({ op: 'close', id: 'o' });
    await subscriber.waitFor((r) => seen(owned.uid)(r) && r.type === 'worker-dropped', 'dropped by its own publisher');
    agent.kill();
  });

  it("with unknownUpdate: 'register', worker-updated of an unknown worker registers it (wool's behaviour)", async () => {
    const agent = await Agent.start(netns);
    agents.push(agent);
    agent.send({
      op: 'publisher',
      id: 'r',
      namespace: NAMESPACE,
      options: { probe: false, unknownUpdate: 'register' },
    });
    await agent.waitFor((r) => r.ev === 'publisher', 'publisher');
    const w = worker('127.0.0.1:7314');
    await agent.ok({ op: 'publish', id: 'r', type: 'worker-updated', worker: w });
    const added = await subscriber.waitFor(seen(w.uid), 'registered by update');
    assert.equal(added.type, 'worker-added');
    await agent.ok({ op: 'close', id: 'r' });
    await subscriber.waitFor((r) => seen(w.uid)(r) && r.type === 'worker-dropped', 'withdrawn on close');
    agent.kill();
  });

  it('probing finds a name another responder holds and rejects with LanNameConflictError', async () => {
    const w = worker('127.0.0.1:7311');
    await publisher.ok({ op: 'publish', id: 'p', type: 'worker-added', worker: w });
    const agent = await Agent.start(netns);
    agents.push(agent);
    agent.send({ op: 'publisher', id: 'c', namespace: NAMESPACE }); // probes (the default)
    const done = await agent.call({ op: 'publish', id: 'c', type: 'worker-added', worker: { ...w, version: '2' } });
    assert.equal(done.error?.name, 'LanNameConflictError');
    assert.equal(done.error?.code, 'WOOLRX_LAN_NAME_CONFLICT');
    await agent.ok({ op: 'close', id: 'c' });
    agent.kill();
  });

  it('a unix address is a TypeError', async () => {
    const done = await publisher.call({
      op: 'publish',
      id: 'p',
      type: 'worker-added',
      worker: worker('unix:/tmp/w.sock'),
    });
    assert.equal(done.error?.name, 'TypeError');
    assert.match(done.error?.message ?? '', /unix/);
  });

  it('a socket that cannot bind is a LanSocketError on the stream and from publish; the process lives on', async () => {
    const agent = await Agent.start(netns);
    agents.push(agent);
    agent.send({ op: 'subscribe', id: 'x', namespace: NAMESPACE, options: { interface: '10.99.99.99' } });
    const failed = await agent.waitFor((r) => r.ev === 'error' && r.id === 'x', 'stream error');
    assert.equal(failed.error?.name, 'LanSocketError');
    assert.equal(failed.error?.errno, 'EADDRNOTAVAIL');
    agent.send({ op: 'publisher', id: 'y', namespace: NAMESPACE, options: { interface: '10.99.99.99', probe: false } });
    const done = await agent.call({ op: 'publish', id: 'y', type: 'worker-added', worker: worker('127.0.0.1:7309') });
    assert.equal(done.error?.name, 'LanSocketError');
    assert.ok(!agent.reports.some((r) => r.ev === 'uncaught'));
    await agent.ok({ op: 'close', id: 'y' });
    agent.send({ op: 'unsubscribe', id: 'x' });
    agent.end();
    assert.equal((await agent.exited).code, 0, 'and exits by itself');
  });

  it('after unsubscribing and closing, the process exits by itself', async () => {
    const agent = await Agent.start(netns);
    agents.push(agent);
    agent.send({ op: 'subscribe', id: 'u', namespace: NAMESPACE });
    agent.send({ op: 'publisher', id: 'v', namespace: NAMESPACE });
    const w = worker('127.0.0.1:7310');
    await agent.ok({ op: 'publish', id: 'v', type: 'worker-added', worker: w }); // probes (the default)
    await agent.waitFor(seen(w.uid), 'own worker seen');
    await sleep(1200); // the repeat announcement and the second query have fired
    await agent.ok({ op: 'close', id: 'v' });
    agent.send({ op: 'unsubscribe', id: 'u' });
    const endAt = Date.now();
    agent.end();
    const exit = await Promise.race([agent.exited, sleep(5000).then(() => 'still running' as const)]);
    assert.notEqual(exit, 'still running', 'nothing keeps the process alive');
    assert.equal(typeof exit === 'object' ? exit.code : -1, 0);
    assert.ok(Date.now() - endAt < 3000);
  });
});
