/**
 * Authenticated LAN records (`signingKey`), in a network namespace of its
 * own: a keyed subscriber lists the keyed publisher's worker and not an
 * unsigned one, one signed with another key, one replayed from another
 * namespace or onto another address, a stale one never seen, or an older
 * signed version after an update; a keyless subscriber lists the keyed
 * worker. Plus the key rule and the record format, in process.
 */
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { lanDiscovery } from '../../../src/backends/lan/index.js';
import { lanServiceType } from '../../../src/backends/lan/lanServiceType.js';
import {
  canonicalRecord,
  readSigningKeys,
  signatureEntry,
  verifyRecord,
  type LanKey,
} from '../../../src/backends/lan/lanSigning.js';
import { encodeTxt } from '../../../src/codec/encodeTxt.js';
import { workerInfo } from '../../../src/model/workerInfo.js';
import { Agent } from './agent.js';
import { Netns } from './netns.js';

const KEY = randomBytes(24).toString('base64url');
const OTHER_KEY = randomBytes(24).toString('base64url');
const NAMESPACE = 'signed';
const TYPE = lanServiceType(NAMESPACE).slice(0, -1);
const RAW = 'test/backends/lan/children/rawResponder.ts';
const [key] = readSigningKeys(KEY) as [LanKey];
const [otherKey] = readSigningKeys(OTHER_KEY) as [LanKey];

interface Forged {
  readonly uid: string;
  readonly version?: string;
  readonly port?: number;
  /** The address the records carry (default 127.0.0.1). */
  readonly ip?: string;
  /** Sign with this key (none: unsigned). */
  readonly key?: LanKey;
  /** Sign for this namespace / address / time (default: the records' own, now). */
  readonly signedNamespace?: string;
  readonly signedIp?: string;
  readonly time?: number;
}

/** The records of a worker as a (possibly forged) woolrx publisher would announce them. */
function records({
  uid,
  version = '1.0.0',
  port = 7200,
  ip = '127.0.0.1',
  key: signer,
  signedNamespace,
  signedIp,
  time,
}: Forged): object[] {
  const worker = workerInfo({ uid, address: `${ip}:${port}`, pid: 42, version, tags: ['gpu'], extra: { zone: 'a' } });
  const txt = encodeTxt(worker);
  const entries = Object.entries(txt).map(([name, value]) => (value === null ? name : `${name}=${value}`));
  if (signer !== undefined) {
    const fields = {
      namespace: signedNamespace ?? NAMESPACE,
      uid,
      address: `${signedIp ?? ip}:${port}`,
      txt,
      time: time ?? Date.now(),
    };
    entries.push(signatureEntry(signer, fields).toString('utf8'));
  }
  return [
    { name: TYPE, type: 'PTR', ttl: 4500, data: `${uid}.${TYPE}` },
    {
      name: `${uid}.${TYPE}`,
      type: 'SRV',
      ttl: 120,
      flush: true,
      data: { port, target: `${uid}.local`, priority: 0, weight: 0 },
    },
    { name: `${uid}.${TYPE}`, type: 'TXT', ttl: 4500, flush: true, data: entries },
    { name: `${uid}.local`, type: 'A', ttl: 120, flush: true, data: ip },
  ];
}

describe('signingKey: the key rule', () => {
  it('accepts 16+ random bytes and 22+ character strings, and a list of keys', () => {
    assert.equal(readSigningKeys(randomBytes(16))?.length, 1);
    assert.equal(readSigningKeys(randomBytes(16).toString('base64url'))?.length, 1);
    assert.equal(readSigningKeys([KEY, OTHER_KEY])?.length, 2);
    assert.equal(readSigningKeys(undefined), undefined);
    assert.match(key.id, /^[0-9a-f]{8}$/);
  });

  it('rejects a weak key with a TypeError naming the rule, never the key', () => {
    const weak: unknown[] = [
      'short-secret-12345',
      'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa',
      'abababababababababababababab',
      randomBytes(15),
      Buffer.alloc(32, 7),
      [],
      [KEY, 'tooshort'],
      [KEY, KEY],
      42,
      null,
    ];
    for (const value of weak) {
      assert.throws(
        () => lanDiscovery('ns', { signingKey: value as never }),
        (error: unknown) => {
          assert.ok(error instanceof TypeError);
          assert.match(error.message, /signingKey/);
          if (!Array.isArray(value) || value.length !== 2 || value[1] !== KEY)
            assert.match(error.message, /at least 16 bytes .* at least 22 characters/);
          for (const secret of [
            KEY,
            'short-secret-12345',
            'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa',
            'abababababababab',
            'tooshort',
          ]) {
            assert.ok(!error.message.includes(secret), `the message holds the key: ${error.message}`);
          }
          return true;
        },
        String(value),
      );
    }
  });

  it('encodes fields with length prefixes: moving a byte between fields changes the MAC input', () => {
    const base = {
      namespace: 'ab',
      uid: 'c',
      address: '1.2.3.4:5',
      txt: { pid: '1', version: '2', tags: null, extra: null, secure: 'false' },
      time: 1,
    };
    const shifted = { ...base, namespace: 'a', uid: 'bc' };
    assert.notDeepEqual(canonicalRecord(base), canonicalRecord(shifted));
    const bare = { ...base, txt: { ...base.txt, tags: '' } };
    assert.notDeepEqual(canonicalRecord(base), canonicalRecord(bare));
    const entry = signatureEntry(key, base);
    assert.ok(entry.length <= 255);
    assert.match(entry.toString(), /^woolrx-sig=1\.[0-9a-f]{8}\.1\.[A-Za-z0-9_-]{43}$/);
    const value = entry.subarray('woolrx-sig='.length);
    const { time: _time, ...fields } = base;
    assert.deepEqual(verifyRecord([otherKey, key], value, fields), { ok: true, time: 1, keyId: key.id });
    assert.deepEqual(verifyRecord([otherKey], value, fields), { ok: false, reason: 'unknown key' });
    assert.deepEqual(verifyRecord([key], value, { ...fields, namespace: 'other' }), {
      ok: false,
      reason: 'bad signature',
    });
    assert.deepEqual(verifyRecord([key], undefined, fields), { ok: false, reason: 'unsigned' });
    assert.deepEqual(verifyRecord([key], true, fields), { ok: false, reason: 'malformed signature' });
  });
});

describe('signingKey on the wire (one network namespace)', () => {
  let netns: Netns;
  let raw: Agent;
  let publisher: Agent;
  let keyed: Agent;
  let plain: Agent;
  const subscribeOptions = { expireAfter: 6000, requeryInterval: 1000 };

  before(async () => {
    netns = Netns.create('signed');
    [raw, publisher, keyed, plain] = await Promise.all([
      Agent.start(netns, RAW),
      Agent.start(netns),
      Agent.start(netns),
      Agent.start(netns),
    ]);
    keyed.send({
      op: 'subscribe',
      id: 'k',
      namespace: NAMESPACE,
      options: { ...subscribeOptions, signingKey: [OTHER_KEY, KEY] },
    });
    plain.send({ op: 'subscribe', id: 'p', namespace: NAMESPACE, options: subscribeOptions });
    publisher.send({
      op: 'publisher',
      id: 'pub',
      namespace: NAMESPACE,
      options: { probe: false, advertiseHost: '127.0.0.1', signingKey: KEY },
    });
    await Promise.all([
      keyed.waitFor((r) => r.ev === 'subscribed', 'keyed'),
      plain.waitFor((r) => r.ev === 'subscribed', 'plain'),
    ]);
    await sleep(100);
  });

  after(() => {
    for (const agent of [raw, publisher, keyed, plain]) agent?.kill();
    netns?.dispose();
  });

  const listed = (agent: Agent, id: string, uid: string): Agent['reports'][number] | undefined =>
    agent
      .events(id)
      .filter((r) => r.worker?.uid === uid)
      .at(-1);
  const unauthenticated = (uid: string): string[] =>
    keyed.reports
      .filter((r) => r.ev === 'diag' && r.kind === 'unauthenticated-record' && r.uid === uid)
      .map((r) => r.message ?? '');

  it('a keyed subscriber and a keyless one list the keyed publisher’s worker, every field intact', async () => {
    const uid = randomUUID();
    const worker = {
      uid,
      address: '127.0.0.1:7300',
      pid: 4242,
      version: '2.1.0',
      tags: ['gpu', 'ssd'],
      extra: { zone: 'eu', 'é': 'ü' },
      secure: true,
    };
    await publisher.ok({ op: 'publish', id: 'pub', type: 'worker-added', worker });
    for (const [agent, id] of [
      [keyed, 'k'],
      [plain, 'p'],
    ] as const) {
      const seen = await agent.waitUntil(() => listed(agent, id, uid), `${id} lists the keyed worker`);
      assert.equal(seen.type, 'worker-added');
      assert.deepEqual(
        { ...seen.worker, options: undefined },
        {
          uid,
          address: '127.0.0.1:7300',
          pid: 4242,
          version: '2.1.0',
          tags: ['gpu', 'ssd'],
          extra: { zone: 'eu', 'é': 'ü' },
          secure: true,
          options: undefined,
        },
      );
    }
    // An update: the keyed subscriber follows it.
    await publisher.ok({ op: 'publish', id: 'pub', type: 'worker-updated', worker: { ...worker, version: '2.2.0' } });
    await keyed.waitUntil(
      () => (listed(keyed, 'k', uid)?.worker?.version === '2.2.0' ? true : undefined),
      'the update',
    );
    assert.deepEqual(unauthenticated(uid), []);
  });

  it('skips unsigned, wrongly keyed, cross-namespace, re-addressed and stale records, each reported once', async () => {
    const uids = {
      unsigned: randomUUID(),
      otherKey: randomUUID(),
      otherNamespace: randomUUID(),
      otherAddress: randomUUID(),
      stale: randomUUID(),
      future: randomUUID(),
    };
    const packet = [
      ...records({ uid: uids.unsigned, port: 7201 }),
      ...records({ uid: uids.otherKey, port: 7202, key: (readSigningKeys(randomBytes(16)) as [LanKey])[0] }),
      ...records({ uid: uids.otherNamespace, port: 7203, key, signedNamespace: 'elsewhere' }),
      ...records({ uid: uids.otherAddress, port: 7204, key, ip: '127.0.0.9', signedIp: '127.0.0.1' }),
      ...records({ uid: uids.stale, port: 7205, key, time: Date.now() - 10 * 60_000 }),
      ...records({ uid: uids.future, port: 7206, key, time: Date.now() + 10 * 60_000 }),
    ];
    raw.send({ op: 'send', answers: packet });
    raw.send({ op: 'send', answers: packet }); // again: no second report
    // The keyless subscriber lists them all: they did reach the keyed one too.
    for (const uid of Object.values(uids)) await plain.waitUntil(() => listed(plain, 'p', uid), `plain lists ${uid}`);
    await keyed.waitUntil(
      () => (Object.values(uids).every((uid) => unauthenticated(uid).length > 0) ? true : undefined),
      'a report of each',
    );
    await sleep(300);
    for (const uid of Object.values(uids)) {
      assert.equal(listed(keyed, 'k', uid), undefined, uid);
      assert.equal(unauthenticated(uid).length, 1, uid);
    }
    assert.match(unauthenticated(uids.unsigned)[0]!, /not signed/);
    assert.match(unauthenticated(uids.otherKey)[0]!, /key this subscriber does not hold/);
    assert.match(unauthenticated(uids.otherNamespace)[0]!, /signature does not verify/);
    assert.match(unauthenticated(uids.otherAddress)[0]!, /signature does not verify/);
    assert.match(unauthenticated(uids.stale)[0]!, /stale/);
    assert.match(unauthenticated(uids.future)[0]!, /stale/);
    for (const report of keyed.reports) {
      const text = JSON.stringify(report);
      assert.ok(!text.includes(KEY) && !text.includes(OTHER_KEY), 'a report holds a key');
    }
    assert.equal(keyed.reports.filter((r) => r.ev === 'error').length, 0);
  });

  it('keeps the newest signed version: an older one replayed after an update is skipped', async () => {
    const uid = randomUUID();
    const t1 = Date.now() - 2000;
    raw.send({ op: 'send', answers: records({ uid, version: '1', key, time: t1, port: 7210 }) });
    await keyed.waitUntil(() => (listed(keyed, 'k', uid)?.worker?.version === '1' ? true : undefined), 'v1');
    raw.send({ op: 'send', answers: records({ uid, version: '2', key, time: t1 + 1000, port: 7210 }) });
    await keyed.waitUntil(() => (listed(keyed, 'k', uid)?.worker?.version === '2' ? true : undefined), 'v2');
    raw.send({ op: 'send', answers: records({ uid, version: '1', key, time: t1, port: 7210 }) });
    await keyed.waitUntil(() => (unauthenticated(uid).length > 0 ? true : undefined), 'the rollback reported');
    // The keyless subscriber took the rollback; the keyed one still holds v2.
    await plain.waitUntil(
      () =>
        listed(plain, 'p', uid)?.worker?.version === '1' &&
        plain.events('p').filter((r) => r.worker?.uid === uid).length === 3
          ? true
          : undefined,
      'plain rolled back',
    );
    await sleep(300);
    assert.deepEqual(
      keyed.summaries('k').filter((line) => line.includes(uid)),
      [`added ${uid}@1`, `updated ${uid}@2`],
    );
    assert.match(unauthenticated(uid)[0]!, /rolled back/);
    // The same v2 record again (a re-announcement) is still accepted, with no new event.
    raw.send({ op: 'send', answers: records({ uid, version: '2', key, time: t1 + 1000, port: 7210 }) });
    await sleep(300);
    assert.deepEqual(
      keyed.summaries('k').filter((line) => line.includes(uid)),
      [`added ${uid}@1`, `updated ${uid}@2`],
    );
  });

  it('a publisher re-signs when it answers a query: a record stale on the wire (its clock was off) becomes fresh on the next answer', async () => {
    const late = await Agent.start(netns);
    try {
      late.send({ op: 'clock', offsetMs: -10 * 60_000 });
      await late.waitFor((r) => r.ev === 'clock', 'clock set');
      late.send({
        op: 'publisher',
        id: 'late',
        namespace: NAMESPACE,
        options: { probe: false, advertiseHost: '127.0.0.1', signingKey: KEY },
      });
      await late.waitFor((r) => r.ev === 'publisher', 'publisher');
      const uid = randomUUID();
      await late.ok({
        op: 'publish',
        id: 'late',
        type: 'worker-added',
        worker: { uid, address: '127.0.0.1:7220', pid: 1, version: '1' },
      });
      await keyed.waitUntil(
        () => (unauthenticated(uid).some((message) => /stale/.test(message)) ? true : undefined),
        'stale reported',
      );
      assert.equal(listed(keyed, 'k', uid), undefined);
      // The clock is right again: the next query (every second) is answered with a fresh signature.
      late.send({ op: 'clock', offsetMs: 0 });
      const seen = await keyed.waitUntil(() => listed(keyed, 'k', uid), 'listed after re-signing', 5000);
      assert.equal(seen.type, 'worker-added');
    } finally {
      late.kill();
    }
  });
});
