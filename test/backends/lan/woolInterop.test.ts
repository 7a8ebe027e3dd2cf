/**
 * Interop with a peer speaking wool's LAN format (children/woollanpeer.py,
 * Python standard library only, written from the wire notes: wool itself
 * cannot be installed here), across two network namespaces: a "wool"
 * publisher's workers appear in our stream, and ours in its browser, with
 * updates and goodbyes. This file only orchestrates.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { workerInfo } from '../../../src/model/workerInfo.js';
import { Agent } from './agent.js';
import { Netns } from './netns.js';

const NAMESPACE = 'wool-interop';
const PEER = 'test/backends/lan/children/woollanpeer.py';
const python = process.env['PYTHON'] ?? 'python3';

describe('lanDiscovery ↔ a wool-format LAN peer (Python)', () => {
  let a: Netns;
  let b: Netns;
  const agents: Agent[] = [];

  before(() => {
    ({ a, b } = Netns.pair('wool', 4));
  });
  after(() => {
    for (const agent of agents) agent.kill();
    a?.dispose();
    b?.dispose();
  });

  it('a wool publisher\'s worker appears in our stream with all its fields, and goes on its goodbye', async () => {
    const subscriber = await Agent.start(b);
    agents.push(subscriber);
    subscriber.send({ op: 'subscribe', id: 's', namespace: NAMESPACE });
    await subscriber.waitFor((r) => r.ev === 'subscribed', 'subscribed');
    const uid = randomUUID();
    const peer = await Agent.attach(
      a.spawn(python, [PEER, 'publish', NAMESPACE, uid, '10.213.4.1', '7500', '4242', '0.13.1', '["gpu", "big"]', '{"zone": "eu-1", "rack": "7"}', 'true']),
    );
    agents.push(peer);
    const added = await subscriber.waitFor((r) => r.ev === 'event' && r.worker?.uid === uid, 'the wool worker');
    assert.equal(added.type, 'worker-added');
    assert.deepEqual(
      { ...added.worker, options: undefined },
      { uid, address: '10.213.4.1:7500', pid: 4242, version: '0.13.1', tags: ['big', 'gpu'], extra: { rack: '7', zone: 'eu-1' }, secure: true, options: undefined },
    );
    peer.child.stdin?.end(); // the peer sends its goodbye and exits
    await peer.waitFor((r) => r.ev === 'goodbye', 'peer goodbye');
    await subscriber.waitFor((r) => r.ev === 'event' && r.worker?.uid === uid && r.type === 'worker-dropped', 'dropped on goodbye', 3000);
  });

  it('our worker appears in a wool browser; an update is an update there, a drop is a removal', async () => {
    const browser = await Agent.attach(b.spawn(python, [PEER, 'browse', NAMESPACE]));
    agents.push(browser);
    const publisher = await Agent.start(a);
    agents.push(publisher);
    publisher.send({ op: 'publisher', id: 'p', namespace: NAMESPACE, options: { probe: false } });
    const uid = randomUUID();
    const w1 = workerInfo({ uid, address: '10.213.4.1:7501', pid: 77, version: '1.0.0', tags: ['gpu'], extra: { zone: 'eu-1' } });
    const w2 = workerInfo({ ...w1, version: '1.0.1', secure: true });
    await publisher.ok({ op: 'publish', id: 'p', type: 'worker-added', worker: w1 });
    const seen = (ev: string) => (r: { ev: string; worker?: { uid: string }; uid?: string }) => r.ev === ev && (r.worker?.uid ?? r.uid) === uid;
    const added = await browser.waitFor(seen('added'), 'wool browser sees our worker');
    assert.deepEqual(added.worker, { uid, address: '10.213.4.1:7501', pid: 77, version: '1.0.0', tags: ['gpu'], extra: { zone: 'eu-1' }, secure: false });
    await publisher.ok({ op: 'publish', id: 'p', type: 'worker-updated', worker: w2 });
    const updated = await browser.waitFor(seen('updated'), 'wool browser sees the update');
    assert.equal(updated.worker?.version, '1.0.1');
    await sleep(1200);
    assert.deepEqual(
      browser.reports.filter((r) => (r.worker?.uid ?? r.uid) === uid).map((r) => r.ev),
      ['added', 'updated'],
      'no removal around the update',
    );
    await publisher.ok({ op: 'publish', id: 'p', type: 'worker-dropped', worker: w2 });
    await browser.waitFor(seen('removed'), 'wool browser sees the goodbye', 3000);
    browser.child.stdin?.end();
  });
});
