// A host where no interface carries multicast is reported on diagnostics in
// so many words, not only as a socket error: tested in a network namespace
// made here whose only interface, loopback, is down (no route at all), so
// sends fail with ENETUNREACH; the stream then errors with a LanSocketError
// and publishing rejects. (Loopback that is up carries multicast to local
// sockets even without a multicast route or flag: that host works, locally.)
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { Agent } from './agent.js';
import { Netns } from './netns.js';

describe('lanDiscovery without a usable multicast interface', { timeout: 60_000 }, () => {
  const cleanup: (() => void)[] = [];
  after(() => {
    for (const step of cleanup.reverse()) step();
  });

  async function subscriberIn(purpose: string, prepare: (netns: Netns) => void): Promise<Agent> {
    const netns = Netns.create(purpose);
    cleanup.push(() => netns.dispose());
    prepare(netns);
    const agent = await Agent.start(netns);
    cleanup.push(() => agent.kill());
    agent.send({ op: 'subscribe', id: 's', namespace: 'nomulticast' });
    return agent;
  }

  it('loopback down: a warning naming ENETUNREACH, then the stream errors with a LanSocketError', async () => {
    const agent = await subscriberIn('nomcdown', (netns) => netns.ip('link', 'set', 'lo', 'down'));
    const warning = await agent.waitFor(
      (r) => r.ev === 'diag' && r.kind === 'warning' && /no usable multicast interface/.test(r.message ?? ''),
      'a no-multicast warning',
      15_000,
    );
    assert.match(warning.message ?? '', /failed with ENETUNREACH/);
    const error = await agent.waitFor((r) => r.ev === 'error', 'the stream error');
    assert.equal(error.error?.name, 'LanSocketError');
    assert.equal(error.error?.code, 'WOOLRX_LAN_SOCKET');

    agent.send({ op: 'publisher', id: 'p', namespace: 'nomulticast', options: { probe: false } });
    await agent.waitFor((r) => r.ev === 'publisher', 'publisher');
    const done = await agent.call({
      op: 'publish',
      id: 'p',
      type: 'worker-added',
      worker: {
        uid: '6f1d2b1c-4c0b-4e7e-9a56-0c2b9d1d7e11',
        address: '10.0.0.1:5000',
        pid: 1,
        version: 'v',
        tags: [],
        extra: {},
        secure: false,
      },
    });
    assert.match(JSON.stringify(done.error), /ENETUNREACH/, 'publish rejects');
    await agent.waitFor(
      (r) => r.ev === 'diag' && r.id === 'p' && /no usable multicast interface/.test(r.message ?? ''),
      "the publisher's no-multicast warning",
    );
  });

  it("with multicast on loopback (the other LAN tests' setup) nothing is reported", async () => {
    const agent = await subscriberIn('mcok', () => undefined);
    await new Promise((resolve) => setTimeout(resolve, 4500));
    assert.deepEqual(
      agent.reports.filter((r) => /multicast/.test(r.message ?? '')),
      [],
    );
    assert.equal(agent.reports.filter((r) => r.ev === 'error').length, 0);
  });
});
