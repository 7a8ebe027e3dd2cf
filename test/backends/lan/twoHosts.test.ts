/**
 * LAN backend between two "hosts": a publisher in network namespace A, a
 * subscriber (and a bonjour-service browser as a third-party peer) in
 * namespace B, joined by a veth pair. This file only orchestrates: every
 * mDNS socket lives in a child process inside those namespaces.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { workerInfo } from '../../../src/model/workerInfo.js';
import { Agent } from './agent.js';
import { Netns } from './netns.js';

const NAMESPACE = 'two-hosts';
const EXPIRE_AFTER = 3000;
const REQUERY = 500;
const BONJOUR = 'test/backends/lan/children/bonjourPeer.ts';

describe('lanDiscovery between two network namespaces', () => {
  let a: Netns;
  let b: Netns;
  let vethB: string;
  let publisher: Agent;
  let subscriber: Agent;
  let browser: Agent;
  const agents: Agent[] = [];

  before(async () => {
    const pair = Netns.pair('2h', 1);
    a = pair.a;
    b = pair.b;
    vethB = pair.veth.b;
    publisher = await Agent.start(a);
    subscriber = await Agent.start(b);
    browser = await Agent.start(b, BONJOUR, ['browse', NAMESPACE]);
    agents.push(publisher, subscriber, browser);
    subscriber.send({
      op: 'subscribe',
      id: 's',
      namespace: NAMESPACE,
      options: { expireAfter: EXPIRE_AFTER, requeryInterval: REQUERY },
    });
    publisher.send({ op: 'publisher', id: 'p', namespace: NAMESPACE, options: { probe: false } });
    await subscriber.waitFor((r) => r.ev === 'subscribed', 'subscribed');
    await publisher.waitFor((r) => r.ev === 'publisher', 'publisher');
  });

  after(() => {
    for (const agent of agents) agent.kill();
    a?.dispose();
    b?.dispose();
  });

  it('sees a worker published on the other host at its default-route address; an update is one worker-updated, never a drop/add pair', async () => {
    const uid = randomUUID();
    const w1 = workerInfo({ uid, address: '0.0.0.0:7001', pid: 11, version: '1' });
    const w2 = workerInfo({
      uid,
      address: '0.0.0.0:7001',
      pid: 11,
      version: '2',
      tags: ['gpu'],
      extra: { zone: 'eu-1' },
    });
    await publisher.ok({ op: 'publish', id: 'p', type: 'worker-added', worker: w1 });
    const added = await subscriber.waitFor((r) => r.ev === 'event' && r.worker?.uid === uid, 'worker added in B');
    assert.equal(added.type, 'worker-added');
    assert.equal(
      added.worker?.address,
      '10.213.1.1:7001',
      "the wildcard bind is advertised as A's default-route address",
    );
    await browser.waitFor((r) => r.ev === 'up' && r.name === uid, 'bonjour-service sees it up');

    await publisher.ok({ op: 'publish', id: 'p', type: 'worker-updated', worker: w2 });
    const updated = await subscriber.waitFor(
      (r) => r.ev === 'event' && r.worker?.uid === uid && r.type === 'worker-updated',
      'worker updated in B',
    );
    assert.deepEqual(updated.worker?.tags, ['gpu']);
    assert.deepEqual(updated.worker?.extra, { zone: 'eu-1' });
    await browser.waitFor((r) => r.ev === 'txt-update' && r.name === uid, 'bonjour-service sees a txt-update');
    // Past the repeated announcement and a couple of re-queries: still exactly one add and one update.
    await sleep(1500);
    const mine = (agent: Agent, id: string): string[] => agent.summaries(id).filter((line) => line.includes(uid));
    assert.deepEqual(mine(subscriber, 's'), [`added ${uid}@1`, `updated ${uid}@2`]);
    const peer = browser.reports.filter((r) => r.name === uid).map((r) => r.ev);
    assert.ok(!peer.includes('down'), `bonjour-service saw no goodbye: ${peer.join(', ')}`);
    assert.equal(peer.filter((ev) => ev === 'up').length, 1, `bonjour-service saw one up: ${peer.join(', ')}`);

    await publisher.ok({ op: 'publish', id: 'p', type: 'worker-dropped', worker: w2 });
    const goodbye = await subscriber.waitFor(
      (r) => r.ev === 'event' && r.worker?.uid === uid && r.type === 'worker-dropped',
      'worker dropped in B',
    );
    assert.equal(goodbye.reason, 'withdrawn', 'an mDNS goodbye is a withdrawal');
    await browser.waitFor((r) => r.ev === 'down' && r.name === uid, 'bonjour-service sees it down');
    assert.deepEqual(mine(subscriber, 's'), [`added ${uid}@1`, `updated ${uid}@2`, `dropped ${uid}@2`]);
  });

  it('decodes an IPv6-only worker (AAAA only) as [v6]:port', async () => {
    const uid = randomUUID();
    const worker = workerInfo({ uid, address: '[fd13:1::1]:7002', pid: 12, version: '1' });
    await publisher.ok({ op: 'publish', id: 'p', type: 'worker-added', worker });
    const added = await subscriber.waitFor((r) => r.ev === 'event' && r.worker?.uid === uid, 'IPv6 worker added');
    assert.equal(added.worker?.address, '[fd13:1::1]:7002');
    await publisher.ok({ op: 'publish', id: 'p', type: 'worker-dropped', worker });
    await subscriber.waitFor(
      (r) => r.ev === 'event' && r.worker?.uid === uid && r.type === 'worker-dropped',
      'IPv6 worker dropped',
    );
  });

  it('probes by default, then announces: the worker appears after probing', async () => {
    const prober = await Agent.start(a);
    agents.push(prober);
    prober.send({ op: 'publisher', id: 'q', namespace: NAMESPACE, options: { advertiseHost: '10.213.1.1' } });
    const uid = randomUUID();
    const done = await prober.ok({
      op: 'publish',
      id: 'q',
      type: 'worker-added',
      worker: workerInfo({ uid, address: '127.0.0.1:7003', pid: 13, version: '1' }),
    });
    assert.ok((done.ms ?? 0) >= 500, `publish waited for 3 probes 250 ms apart (${done.ms} ms)`);
    const added = await subscriber.waitFor((r) => r.ev === 'event' && r.worker?.uid === uid, 'probed worker added');
    assert.equal(added.worker?.address, '10.213.1.1:7003', 'advertiseHost is used verbatim');
    assert.ok(
      !prober.reports.some((r) => r.ev === 'diag' && r.kind === 'warning' && r.message?.includes('loopback')),
      'no loopback warning with an explicit advertiseHost',
    );
    await prober.ok({ op: 'close', id: 'q' });
    await subscriber.waitFor(
      (r) => r.ev === 'event' && r.worker?.uid === uid && r.type === 'worker-dropped',
      'closed publisher: goodbye',
    );
    prober.end();
    const exit = await prober.exited;
    assert.equal(exit.code, 0, 'a closed publisher leaves nothing that keeps the process alive');
  });

  it('drops the workers of a publisher killed with SIGKILL within expireAfter', async () => {
    const doomed = await Agent.start(a);
    agents.push(doomed);
    doomed.send({ op: 'publisher', id: 'd', namespace: NAMESPACE, options: { probe: false } });
    const uid = randomUUID();
    await doomed.ok({
      op: 'publish',
      id: 'd',
      type: 'worker-added',
      worker: workerInfo({ uid, address: '10.213.1.1:7004', pid: 14, version: '1' }),
    });
    await subscriber.waitFor((r) => r.ev === 'event' && r.worker?.uid === uid, 'doomed worker added');
    const killedAt = Date.now();
    doomed.kill('SIGKILL');
    await doomed.exited;
    const dropped = await subscriber.waitFor(
      (r) => r.ev === 'event' && r.worker?.uid === uid && r.type === 'worker-dropped',
      'doomed worker dropped',
      EXPIRE_AFTER + 3000,
    );
    assert.equal(dropped.reason, 'expired', 'no goodbye: it expired');
    const after = (dropped.at ?? 0) - killedAt;
    assert.ok(after <= EXPIRE_AFTER + 500, `dropped ${after} ms after the kill (expireAfter ${EXPIRE_AFTER})`);
  });

  it('sees a worker advertised by a bonjour-service publisher on the other host', async () => {
    const uid = randomUUID();
    const peer = await Agent.start(a, BONJOUR, [
      'publish',
      NAMESPACE,
      uid,
      '7005',
      JSON.stringify({ pid: '42', version: '0.13.1', tags: '["gpu"]', secure: 'false' }),
    ]);
    agents.push(peer);
    const added = await subscriber.waitFor(
      (r) => r.ev === 'event' && r.worker?.uid === uid,
      'bonjour-service worker added',
    );
    assert.equal(added.type, 'worker-added');
    assert.equal(added.worker?.address, '10.213.1.1:7005');
    assert.equal(added.worker?.pid, 42);
    assert.deepEqual(added.worker?.tags, ['gpu']);
    const goodbyeAt = Date.now();
    peer.end(); // the peer then sends goodbyes (unpublishAll)
    const dropped = await subscriber.waitFor(
      (r) => r.ev === 'event' && r.worker?.uid === uid && r.type === 'worker-dropped',
      'bonjour-service worker dropped',
    );
    assert.ok(
      (dropped.at ?? 0) - goodbyeAt < 1000,
      `dropped on the goodbye, not by expiry (${(dropped.at ?? 0) - goodbyeAt} ms)`,
    );
  });

  it('when the interface goes away, a subscription errors and publish rejects with LanSocketError; the processes survive', async () => {
    subscriber.send({
      op: 'subscribe',
      id: 'g',
      namespace: NAMESPACE,
      options: { expireAfter: EXPIRE_AFTER, requeryInterval: REQUERY },
    });
    await subscriber.waitFor((r) => r.ev === 'subscribed' && r.id === 'g', 'subscribed g');
    await sleep(200);
    b.ip('link', 'del', vethB);
    const failed = await subscriber.waitFor((r) => r.ev === 'error' && r.id === 'g', 'stream error', 5000);
    assert.equal(failed.error?.name, 'LanSocketError');
    assert.equal(failed.error?.code, 'WOOLRX_LAN_SOCKET');
    assert.ok(!subscriber.reports.some((r) => r.ev === 'uncaught'), 'no uncaught exception');
    // The publisher on the other end of the (now deleted) veth: a typed rejection, and a diagnostic.
    const done = await publisher.call({
      op: 'publish',
      id: 'p',
      type: 'worker-added',
      worker: workerInfo({ uid: randomUUID(), address: '10.213.1.1:7006', pid: 15, version: '1' }),
    });
    assert.equal(done.error?.name, 'LanSocketError');
    assert.ok(
      publisher.reports.some(
        (r) => r.ev === 'diag' && r.kind === 'warning' && /LAN publisher stopped/.test(r.message ?? ''),
      ),
    );
    assert.ok(!publisher.reports.some((r) => r.ev === 'uncaught'), 'no uncaught exception in the publisher');
    subscriber.send({ op: 'unsubscribe', id: 'g' });
    subscriber.send({ op: 'unsubscribe', id: 's' });
    await subscriber.waitFor((r) => r.ev === 'unsubscribed' && r.id === 's', 'still answering');
    assert.equal(subscriber.child.exitCode, null);
  });
});
