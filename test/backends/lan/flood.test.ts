/**
 * A subscriber recovers an update it missed while a flood of undecodable
 * packets filled its receive buffer: the flood is sent to the mDNS group
 * while the subscriber process is paused (a busy host), so the publisher's
 * announcement of the update and its repeat are dropped by the kernel. The
 * re-query period is a minute: only the query that follows an undecodable
 * packet can bring the update back. Everything runs in a network namespace
 * of its own.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { Agent } from './agent.js';
import { Netns } from './netns.js';

const NAMESPACE = 'flood';
const RAW = 'test/backends/lan/children/rawResponder.ts';

describe('lanDiscovery subscriber under a flood of undecodable packets', () => {
  let netns: Netns;
  let raw: Agent;
  let publisher: Agent;
  let subscriber: Agent;

  before(async () => {
    netns = Netns.create('flood');
    [raw, publisher, subscriber] = await Promise.all([Agent.start(netns, RAW), Agent.start(netns), Agent.start(netns)]);
  });

  after(() => {
    if (subscriber?.child.pid !== undefined) process.kill(subscriber.child.pid, 'SIGCONT');
    raw?.kill();
    publisher?.kill();
    subscriber?.kill();
    netns?.dispose();
  });

  it('queries again after undecodable packets and sees the update it missed', async () => {
    const uid = randomUUID();
    const worker = (version: string): object => ({
      uid,
      address: '127.0.0.1:7400',
      pid: 1,
      version,
      tags: [],
      extra: {},
      secure: false,
    });
    publisher.send({ op: 'publisher', id: 'p', namespace: NAMESPACE, options: { probe: false } });
    await publisher.waitFor((r) => r.ev === 'publisher', 'publisher');
    await publisher.ok({ op: 'publish', id: 'p', type: 'worker-added', worker: worker('1') });
    subscriber.send({
      op: 'subscribe',
      id: 's',
      namespace: NAMESPACE,
      options: { requeryInterval: 60_000, expireAfter: 120_000 },
    });
    await subscriber.waitFor(
      (r) => r.ev === 'event' && r.id === 's' && r.worker?.version === '1',
      'the worker at version 1',
    );
    // Past the subscriber's second query (1 s): from here on only the periodic re-query (a minute) would ask.
    await sleep(1500);

    const pid = subscriber.child.pid;
    assert.ok(pid !== undefined);
    process.kill(pid, 'SIGSTOP');
    try {
      raw.send({ op: 'flood', count: 1000, ms: 500 });
      await raw.waitFor((r) => r.ev === 'flooded', 'first half of the flood');
      // The announcement of the update and its 1 s repeat reach a full receive buffer.
      await publisher.ok({ op: 'publish', id: 'p', type: 'worker-updated', worker: worker('2') });
      raw.send({ op: 'flood', count: 1000, ms: 1500 });
      await raw.waitUntil(
        () => (raw.reports.filter((r) => r.ev === 'flooded').length === 2 ? true : undefined),
        'second half of the flood',
      );
    } finally {
      process.kill(pid, 'SIGCONT');
    }

    const updated = await subscriber.waitFor(
      (r) => r.ev === 'event' && r.id === 's' && r.worker?.version === '2',
      'the worker at version 2',
      5000,
    );
    assert.equal(updated.type, 'worker-updated');
    assert.equal(subscriber.reports.filter((r) => r.ev === 'error').length, 0);
    const warnings = subscriber.reports.filter((r) => r.ev === 'diag' && r.kind === 'warning');
    assert.ok(warnings.length >= 1, 'the undecodable packets are reported');
    // Refused from the header alone, never handed to the decoder (which
    // allocated ~2 MB and spent ~1.2 ms on each of these packets).
    assert.match(
      String(warnings[0]?.message),
      /skipped an undecodable packet from [\d.]+: its header announces 65535 question\(s\) and 196605 record\(s\)/,
    );
    assert.ok(warnings.length <= 100, `warnings stay bounded (${warnings.length})`);
  });

  it('sends no query after unsubscribing, whatever arrives', async () => {
    subscriber.send({ op: 'unsubscribe', id: 's' });
    await subscriber.waitFor((r) => r.ev === 'unsubscribed', 'unsubscribed');
    await sleep(300);
    const before = raw.reports.filter((r) => r.ev === 'query').length;
    raw.send({ op: 'flood', count: 50, ms: 100 });
    await raw.waitUntil(
      () => (raw.reports.filter((r) => r.ev === 'flooded').length === 3 ? true : undefined),
      'a third flood',
    );
    await sleep(1500);
    assert.equal(raw.reports.filter((r) => r.ev === 'query').length, before);
  });
});
