/**
 * LAN interop with the real wool (`../shared/wool-peer`, `$WOOL_PEER`):
 * wool's own `LanDiscovery` (zeroconf) in a Python process
 * (realwool_peer.py) and woolrx's lanDiscovery in a node agent, on two
 * network namespaces this test makes and joins with a veth pair: the mDNS
 * traffic never leaves them. Every child is bounded in time and killed by
 * pid; the namespaces are deleted after.
 */
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import type { WorkerInfo } from '../../src/model/types.js';
import { workerInfo } from '../../src/model/workerInfo.js';
import { Agent } from '../backends/lan/agent.js';
import { Netns } from '../backends/lan/netns.js';
import { uniqueNamespace } from '../cli/children.js';
import { assertRealWool, canonical, killRealWool, RealWool } from './realWool.js';

const SUBNET = 22;
const HOST_A = `10.213.${SUBNET}.1`;
/** woolrx subscriptions here: a worker unseen for 4 s is dropped; the network is asked again every second. */
const EXPIRE_AFTER = 4000;
const REQUERY = 1000;
const SUBSCRIBE_OPTIONS = { expireAfter: EXPIRE_AFTER, requeryInterval: REQUERY };
/** Subscriptions that ask the network only at start (at once, after 1 s) during a test. */
const QUIET = { expireAfter: 90_000, requeryInterval: 30_000 };

let a: Netns;
let b: Netns;
const agents: Agent[] = [];

before(() => {
  assertRealWool();
  ({ a, b } = Netns.pair('rwool', SUBNET));
});
after(() => {
  for (const agent of agents) agent.kill();
  killRealWool();
  a?.dispose();
  b?.dispose();
});

async function woolrxAgent(netns: Netns): Promise<Agent> {
  const agent = await Agent.start(netns);
  agents.push(agent);
  return agent;
}

/** A worker as it travels over mDNS: every TXT field away from its default; channel options are not on the LAN wire. */
function lanWorker(port: number, overrides: Partial<Parameters<typeof workerInfo>[0]> = {}): WorkerInfo {
  return workerInfo({
    uid: randomUUID(),
    address: `${HOST_A}:${port}`,
    pid: 4242,
    version: '0.13.1',
    tags: ['gpu', 'fp16', 'zß'],
    extra: { zone: 'eu-1', rack: '7', 'naïve': 'va=lue' },
    secure: true,
    ...overrides,
  });
}

/** An update of every TXT field. */
function changed(worker: WorkerInfo): WorkerInfo {
  return workerInfo({
    ...worker,
    version: `${worker.version}+1`,
    tags: ['cpu'],
    extra: { 'ключ': 'значение' },
    secure: !worker.secure,
  });
}

const json = (value: unknown): unknown => JSON.parse(JSON.stringify(value));

describe('LAN interop with the real wool (two network namespaces)', () => {
  it("wool → woolrx: add, update in place, drop (goodbye), and expiry of a SIGKILLed wool publisher's worker", async () => {
    const ns = uniqueNamespace('realwool-lan-w2rx');
    const rx = await woolrxAgent(b);
    // zeroconf builds an answer when a query arrives and may send it up to ~1 s later, after an update
    // or goodbye that came in between (docs/interop-wool.md). These subscriptions query at once and
    // after 1 s, then not for 30 s: with no query in flight, add, update and drop must arrive exactly.
    rx.send({ op: 'subscribe', id: 'w', namespace: ns, options: QUIET });
    await rx.waitFor((r) => r.ev === 'subscribed' && r.id === 'w', 'subscribed');
    const wool = await RealWool.start('lan', ns, { netns: a });
    const w = lanWorker(7500);
    await wool.publish('worker-added', w);
    const added = await rx.waitFor(
      (r) => r.ev === 'event' && r.id === 'w' && r.worker?.uid === w.uid,
      "wool's worker in the watching subscription",
      15_000,
    );
    assert.equal(added.type, 'worker-added');
    assert.deepEqual(json(added.worker), json(w));
    // A fresh subscription finds it by asking.
    rx.send({ op: 'subscribe', id: 'f', namespace: ns, options: QUIET });
    const found = await rx.waitFor(
      (r) => r.ev === 'event' && r.id === 'f' && r.worker?.uid === w.uid,
      "wool's worker in a fresh subscription",
      15_000,
    );
    assert.deepEqual(json(found.worker), json(w));
    await sleep(3000); // past the fresh subscription's second query (and zeroconf's delayed answers to it)

    const w2 = changed(w);
    await wool.publish('worker-updated', w2);
    for (const id of ['w', 'f']) {
      const updated = await rx.waitFor(
        (r) => r.ev === 'event' && r.id === id && r.type === 'worker-updated',
        `update in ${id}`,
      );
      assert.deepEqual(json(updated.worker), json(w2));
    }
    await sleep(1000); // zeroconf's three announcements of the update: still one event
    await wool.publish('worker-dropped', w2);
    const dropStart = Date.now();
    for (const id of ['w', 'f'])
      await rx.waitFor((r) => r.ev === 'event' && r.id === id && r.type === 'worker-dropped', `goodbye in ${id}`, 3000);
    assert.ok(Date.now() - dropStart < 3000);
    await sleep(500);
    for (const id of ['w', 'f']) {
      assert.deepEqual(
        rx.summaries(id),
        [`added ${w.uid}@${w.version}`, `updated ${w.uid}@${w2.version}`, `dropped ${w.uid}@${w2.version}`],
        `events of ${id}`,
      );
    }

    // Expiry: a subscription that asks every second and drops what is unseen for 4 s.
    const x = lanWorker(7502, { tags: [], extra: {}, secure: false });
    rx.send({ op: 'subscribe', id: 'e', namespace: ns, options: SUBSCRIBE_OPTIONS });
    await wool.publish('worker-added', x);
    const xAdded = await rx.waitFor((r) => r.ev === 'event' && r.id === 'e' && r.worker?.uid === x.uid, 'x added');
    assert.deepEqual(json(xAdded.worker), json(x));
    await sleep(REQUERY * 1.5); // seen again in a re-query at least once
    const killedAt = Date.now();
    await wool.kill('SIGKILL'); // no goodbye
    const expired = await rx.waitFor(
      (r) => r.ev === 'event' && r.id === 'e' && r.worker?.uid === x.uid && r.type === 'worker-dropped',
      'x expired',
      EXPIRE_AFTER + REQUERY + 5000,
    );
    const elapsed = (expired.at ?? Date.now()) - killedAt;
    assert.ok(
      elapsed >= EXPIRE_AFTER - REQUERY - 500 && elapsed <= EXPIRE_AFTER + REQUERY + 3000,
      `expired ${elapsed} ms after the SIGKILL (expireAfter ${EXPIRE_AFTER}, requeryInterval ${REQUERY})`,
    );
    assert.deepEqual(rx.summaries('e'), [`added ${x.uid}@${x.version}`, `dropped ${x.uid}@${x.version}`]);
    assert.deepEqual(
      rx.reports.filter((r) => r.ev === 'diag' || r.ev === 'error' || r.ev === 'fatal'),
      [],
    );
    rx.kill();
  });

  it("woolrx → wool: a watching and a fresh wool subscriber see woolrx's add, update and goodbye; a SIGKILLed woolrx publisher's worker stays in wool until its PTR record's TTL", async () => {
    const ns = uniqueNamespace('realwool-lan-rx2w');
    const watching = await RealWool.start('lan', ns, { netns: b });
    await watching.subscribe('s');
    const rx = await woolrxAgent(a);
    rx.send({ op: 'publisher', id: 'p', namespace: ns });
    await rx.waitFor((r) => r.ev === 'publisher', 'publisher');
    const w = lanWorker(7501);
    await rx.ok({ op: 'publish', id: 'p', type: 'worker-added', worker: w });
    await watching.waitForState('s', [w], "wool sees woolrx's worker, every TXT field", 15_000);
    const fresh = await RealWool.start('lan', ns, { netns: b });
    await fresh.subscribe('s');
    await fresh.waitForState('s', [w], 'a fresh wool subscriber finds it', 15_000);

    const w2 = changed(w);
    await rx.ok({ op: 'publish', id: 'p', type: 'worker-updated', worker: w2 });
    for (const p of [watching, fresh]) await p.waitForState('s', [w2], 'the update');
    await sleep(1500);
    for (const p of [watching, fresh]) {
      // An update in place: never a removal and a new add in wool.
      assert.deepEqual(
        p
          .events('s')
          .map((r) => r.type)
          .filter((t) => t !== 'worker-updated'),
        ['worker-added'],
      );
      assert.equal(canonical([...p.state('s').values()]), canonical([w2]));
    }
    await rx.ok({ op: 'publish', id: 'p', type: 'worker-dropped', worker: w2 });
    for (const p of [watching, fresh]) await p.waitForState('s', [], 'the goodbye', 3000);

    const x = lanWorker(7503, { tags: [], extra: {}, secure: false });
    await rx.ok({ op: 'publish', id: 'p', type: 'worker-added', worker: x });
    await watching.waitForState('s', [x], 'x added');
    rx.kill('SIGKILL'); // no goodbye
    await rx.exited;
    // zeroconf's browser (wool's subscriber) removes a service only when its
    // PTR record expires: woolrx's PTR TTL is 4500 s (RFC 6762 §10, as
    // zeroconf's own). Documented in docs/interop-wool.md.
    await sleep(EXPIRE_AFTER + REQUERY);
    assert.equal(
      canonical([...watching.state('s').values()]),
      canonical([x]),
      "wool still lists the SIGKILLed publisher's worker",
    );
    for (const p of [watching, fresh]) assert.deepEqual(p.errors(), []);
    await fresh.exit();
    await watching.exit();
  });

  it("signed woolrx → wool: wool (no key) lists a keyed woolrx publisher's worker with every field, its update and goodbye; a keyed woolrx subscriber lists it too", async () => {
    const ns = uniqueNamespace('realwool-lan-signed');
    const signingKey = randomBytes(24).toString('base64url');
    const wool = await RealWool.start('lan', ns, { netns: b });
    await wool.subscribe('s');
    const keyed = await woolrxAgent(b);
    keyed.send({ op: 'subscribe', id: 'k', namespace: ns, options: { ...QUIET, signingKey } });
    await keyed.waitFor((r) => r.ev === 'subscribed' && r.id === 'k', 'keyed subscribed');
    const rx = await woolrxAgent(a);
    rx.send({ op: 'publisher', id: 'p', namespace: ns, options: { signingKey } });
    await rx.waitFor((r) => r.ev === 'publisher', 'publisher');
    const w = lanWorker(7511);
    await rx.ok({ op: 'publish', id: 'p', type: 'worker-added', worker: w });
    await wool.waitForState('s', [w], 'wool sees the signed worker, every TXT field', 15_000);
    await keyed.waitUntil(
      () => keyed.events('k').find((r) => r.worker?.uid === w.uid),
      'the keyed woolrx subscriber lists it',
    );
    // Re-signing: the publisher's clock moves 2 min on, so its next answer (to a fresh wool's first
    // query) carries a new signature entry. wool's subscribers keep the worker, metadata unchanged.
    rx.send({ op: 'clock', offsetMs: 120_000 });
    await rx.waitFor((r) => r.ev === 'clock', 'clock moved');
    const before = wool.events('s').length;
    const fresh = await RealWool.start('lan', ns, { netns: b });
    await fresh.subscribe('s');
    await fresh.waitForState('s', [w], 'a fresh wool subscriber finds the re-signed worker', 15_000);
    await sleep(2000);
    const resigned = wool.events('s').slice(before);
    process.stderr.write(`wool events after a re-signed answer: ${JSON.stringify(resigned.map((r) => r.type))}\n`);
    assert.ok(
      resigned.every((r) => r.type === 'worker-updated'),
      'only updates (same metadata)',
    );
    assert.equal(canonical([...wool.state('s').values()]), canonical([w]));
    await fresh.exit();
    const w2 = changed(w);
    await rx.ok({ op: 'publish', id: 'p', type: 'worker-updated', worker: w2 });
    await wool.waitForState('s', [w2], 'the signed update');
    await keyed.waitUntil(
      () => (keyed.events('k').at(-1)?.worker?.version === w2.version ? true : undefined),
      'the keyed subscriber follows the update',
    );
    await rx.ok({ op: 'publish', id: 'p', type: 'worker-dropped', worker: w2 });
    await wool.waitForState('s', [], 'the goodbye', 3000);
    // The two subscribers hear the same goodbye in two processes: wait for the keyed one too.
    await keyed.waitUntil(
      () => keyed.events('k').find((r) => r.type === 'worker-dropped'),
      'the keyed subscriber drops it on the goodbye',
      3000,
    );
    assert.deepEqual(
      wool
        .events('s')
        .map((r) => r.type)
        .filter((t) => t !== 'worker-updated'),
      ['worker-added', 'worker-dropped'],
    );
    assert.deepEqual(
      keyed.events('k').map((r) => r.type),
      ['worker-added', 'worker-updated', 'worker-dropped'],
      'one update, never a re-signing',
    );
    assert.deepEqual(wool.errors(), []);
    assert.deepEqual(
      keyed.reports.filter((r) => r.ev === 'diag' && r.kind === 'unauthenticated-record'),
      [],
    );
    await wool.exit();
  });
});
