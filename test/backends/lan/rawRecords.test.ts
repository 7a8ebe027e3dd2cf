/**
 * lanDiscovery's subscriber against records crafted by hand on a raw
 * multicast-dns responder: malformed TXT records are skipped and reported,
 * and a goodbye racing an in-flight resolve leaves no ghost. Both run in a
 * network namespace of their own; this file only orchestrates.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { lanServiceType } from '../../../src/backends/lan/lanServiceType.js';
import { Agent } from './agent.js';
import { Netns } from './netns.js';

const NAMESPACE = 'raw-records';
const TYPE = lanServiceType(NAMESPACE).slice(0, -1);
const RAW = 'test/backends/lan/children/rawResponder.ts';

interface Parts {
  readonly txt?: string[];
  readonly port?: number;
  readonly ip?: string;
}

const ptr = (uid: string, ttl = 4500): object => ({ name: TYPE, type: 'PTR', ttl, data: `${uid}.${TYPE}` });
function resolved(uid: string, { txt = ['pid=1', 'version=1'], port = 7100, ip = '127.0.0.1' }: Parts = {}): object[] {
  return [
    {
      name: `${uid}.${TYPE}`,
      type: 'SRV',
      ttl: 120,
      flush: true,
      data: { port, target: `${uid}.local`, priority: 0, weight: 0 },
    },
    { name: `${uid}.${TYPE}`, type: 'TXT', ttl: 4500, flush: true, data: txt },
    { name: `${uid}.local`, type: 'A', ttl: 120, flush: true, data: ip },
  ];
}

describe('lanDiscovery subscriber against a raw mDNS responder', () => {
  let netns: Netns;
  let raw: Agent;
  let subscriber: Agent;

  before(async () => {
    netns = Netns.create('raw');
    raw = await Agent.start(netns, RAW);
    subscriber = await Agent.start(netns);
    subscriber.send({
      op: 'subscribe',
      id: 's',
      namespace: NAMESPACE,
      options: { expireAfter: 5000, requeryInterval: 1000 },
    });
    await subscriber.waitFor((r) => r.ev === 'subscribed', 'subscribed');
    await sleep(100);
  });

  after(() => {
    raw?.kill();
    subscriber?.kill();
    netns?.dispose();
  });

  it('skips records that are not workers, reports each once on diagnostics, and goes on', async () => {
    const noPid = randomUUID();
    const noVersion = randomUUID();
    const badJson = randomUUID();
    const good = randomUUID();
    const packet = [
      ptr(noPid),
      ...resolved(noPid, { txt: ['version=1'] }),
      ptr(noVersion),
      ...resolved(noVersion, { txt: ['pid=5', 'tags'] }),
      ptr(badJson),
      ...resolved(badJson, { txt: ['pid=5', 'version=1', 'tags=[oops'] }),
      ptr(good),
      ...resolved(good, { txt: ['pid=7', 'version=2', 'tags=["gpu"]', 'extra', 'secure=true'], port: 7101 }),
    ];
    raw.send({ op: 'send', answers: packet });
    const added = await subscriber.waitFor((r) => r.ev === 'event' && r.worker?.uid === good, 'the good worker');
    assert.equal(added.type, 'worker-added');
    assert.equal(added.worker?.address, '127.0.0.1:7101');
    assert.deepEqual(added.worker?.tags, ['gpu']);
    assert.equal(added.worker?.secure, true);
    const reports = (uid: string): number =>
      subscriber.reports.filter((r) => r.ev === 'diag' && r.kind === 'malformed-record' && r.uid === uid).length;
    await subscriber.waitUntil(
      () => (reports(noPid) && reports(noVersion) && reports(badJson) ? true : undefined),
      'three malformed-record diagnostics',
    );
    const message = subscriber.reports.find((r) => r.ev === 'diag' && r.uid === noPid)?.message ?? '';
    assert.match(message, /missing pid/);
    assert.match(subscriber.reports.find((r) => r.ev === 'diag' && r.uid === badJson)?.message ?? '', /tags/);
    // The same records again: no new event, no repeated report.
    raw.send({ op: 'send', answers: packet });
    await sleep(300);
    assert.deepEqual([reports(noPid), reports(noVersion), reports(badJson)], [1, 1, 1]);
    assert.deepEqual(
      subscriber.events('s').filter((r) => ([noPid, noVersion, badJson] as string[]).includes(r.worker?.uid ?? '')),
      [],
      'no event for a malformed record',
    );
    assert.equal(subscriber.events('s').filter((r) => r.worker?.uid === good).length, 1);
    assert.equal(
      subscriber.reports.find((r) => r.ev === 'error'),
      undefined,
      'the stream goes on',
    );

    // A worker whose TXT turns malformed is dropped (and reported).
    raw.send({ op: 'send', answers: [ptr(good), ...resolved(good, { txt: ['version=3'], port: 7101 })] });
    await subscriber.waitFor(
      (r) => r.ev === 'event' && r.worker?.uid === good && r.type === 'worker-dropped',
      'good worker dropped once malformed',
    );
    assert.equal(reports(good), 1);
  });

  it('reports an undecodable packet once as a warning and goes on', async () => {
    raw.send({ op: 'garbage' });
    raw.send({ op: 'garbage' });
    await subscriber.waitFor((r) => r.ev === 'diag' && r.kind === 'warning', 'a warning diagnostic');
    const uid = randomUUID();
    raw.send({ op: 'send', answers: [ptr(uid), ...resolved(uid, { port: 7104 })] });
    await subscriber.waitFor((r) => r.ev === 'event' && r.worker?.uid === uid, 'a worker after the garbage');
    assert.equal(subscriber.reports.filter((r) => r.ev === 'diag' && r.kind === 'warning').length, 1, 'reported once');
    assert.equal(
      subscriber.reports.find((r) => r.ev === 'error'),
      undefined,
    );
  });

  it('resolves a PTR that came alone; a goodbye racing that resolve leaves no ghost', async () => {
    const ghost = randomUUID();
    const real = randomUUID();
    // Each name's SRV query is answered late; the ghost's goodbye comes first.
    for (const [uid, actions] of [
      [
        ghost,
        [
          { delayMs: 0, answers: [ptr(ghost, 0)] },
          { delayMs: 80, answers: resolved(ghost, { port: 7102 }) },
        ],
      ],
      [real, [{ delayMs: 80, answers: resolved(real, { port: 7103 }) }]],
    ] as const) {
      raw.send({ op: 'rule', name: `${uid}.${TYPE}`, type: 'SRV', actions });
      await raw.waitFor((r) => r.ev === 'rule' && r.name === `${uid}.${TYPE}`, 'rule set');
    }
    raw.send({ op: 'send', answers: [ptr(ghost), ptr(real)] });
    const added = await subscriber.waitFor(
      (r) => r.ev === 'event' && r.worker?.uid === real,
      'the real worker, resolved',
    );
    assert.equal(added.worker?.address, '127.0.0.1:7103');
    await raw.waitFor(
      (r) => r.ev === 'sent' && typeof r.message !== 'string' && JSON.stringify(r).includes(`${ghost}.${TYPE} SRV #1`),
      'the late answer for the ghost was sent',
    );
    assert.ok(
      raw.reports.some((r) => r.ev === 'query' && JSON.stringify(r).includes(`${ghost}.${TYPE}`)),
      "the subscriber did ask for the ghost's SRV (the resolve was in flight)",
    );
    await sleep(1500); // and past a re-query
    assert.deepEqual(
      subscriber.events('s').filter((r) => r.worker?.uid === ghost),
      [],
      'no ghost',
    );
  });

  it('the first snapshot waits for a worker that answered the first query but is still being resolved when the window ends', async () => {
    // Its own service type: only the new subscription's first query fires these rules.
    const type = lanServiceType('raw-sync').slice(0, -1);
    const uid = randomUUID();
    const instance = `${uid}.${type}`;
    const late = [
      {
        name: instance,
        type: 'SRV',
        ttl: 120,
        flush: true,
        data: { port: 7105, target: `${uid}.local`, priority: 0, weight: 0 },
      },
      { name: instance, type: 'TXT', ttl: 4500, flush: true, data: ['pid=1', 'version=1'] },
      { name: `${uid}.local`, type: 'A', ttl: 120, flush: true, data: '127.0.0.1' },
    ];
    // The PTR answers the first query at once, alone; the SRV/TXT/A come 400 ms after they are asked for.
    raw.send({
      op: 'rule',
      name: type,
      type: 'PTR',
      actions: [{ delayMs: 0, answers: [{ name: type, type: 'PTR', ttl: 4500, data: instance }] }],
    });
    raw.send({ op: 'rule', name: instance, type: 'SRV', actions: [{ delayMs: 400, answers: late }] });
    await raw.waitFor((r) => r.ev === 'rule' && r.name === instance, 'rules set');
    subscriber.send({ op: 'snapshots', id: 'sync', namespace: 'raw-sync', options: { syncWindow: 250 } });
    const first = await subscriber.waitFor((r) => r.ev === 'snapshot' && r.id === 'sync', 'first snapshot');
    assert.deepEqual(first.uids, [uid], 'the worker that answered the first query is in the first snapshot');
    assert.ok((first.at ?? 0) >= 400, `after its resolve was answered: ${first.at} ms`);
    subscriber.send({ op: 'unsubscribe', id: 'sync' });
  });
});
