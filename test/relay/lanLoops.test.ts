// Relays both ways between one local namespace and one LAN namespace on one
// host (a network namespace made here; shared memory is the machine's):
// `woolrx relay --from local --to lan` and `woolrx relay --from lan --to
// local`, as child processes in the namespace. Local holds 2 workers of its
// own, the LAN 1 (an agent's publisher): each side ends with all 3 — its
// own plus the other's, marked — and neither side sees an event for 10 s:
// no relay copies back what the other wrote.
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createInterface } from 'node:readline';
import { after, describe, it } from 'node:test';
import { localDiscovery } from '../../src/backends/local/localDiscovery.js';
import { workerInfo } from '../../src/model/workerInfo.js';
import { RELAY_MARK } from '../../src/relay/RELAY_MARK.js';
import type { RelayStatus } from '../../src/relay/types.js';
import { waitFor } from '../backends/etcd/helpers.js';
import { Agent } from '../backends/lan/agent.js';
import { Netns } from '../backends/lan/netns.js';
import { Recorder } from '../backends/local/helpers.js';
import { residue, sweep, uniqueNamespace } from '../cli/children.js';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** A `woolrx relay` child in `netns`, its NDJSON items collected. */
function relay(
  netns: Netns,
  args: readonly string[],
): { child: ChildProcess; items: RelayStatus[]; stderr: () => string; exited: Promise<number | null> } {
  const child = netns.spawnNode('src/cli/main.ts', ['relay', ...args]);
  const items: RelayStatus[] = [];
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  createInterface({ input: child.stdout! }).on('line', (line) => items.push(JSON.parse(line) as RelayStatus));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, items, stderr: () => stderr, exited };
}

describe('relays both ways between local and the LAN on one host', { timeout: 120_000 }, () => {
  const cleanups: (() => unknown)[] = [];
  after(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it("each side ends with its own workers plus the other's, marked; no event for 10 s", async () => {
    const localNs = uniqueNamespace('relay-lanloop');
    const lanNs = `relay-lanloop-${process.pid}`;
    const localOwn = [1, 2].map((n) =>
      workerInfo({ uid: randomUUID(), address: `10.55.0.${n}:7000`, pid: process.pid, version: '1' }),
    );
    const lanOwn = workerInfo({ uid: randomUUID(), address: '10.56.0.1:7000', pid: 77, version: '1' });
    const uids = [...localOwn, lanOwn].map((w) => w.uid);
    cleanups.push(() => sweep(localNs, uids));

    const publisher = localDiscovery(localNs).publisher();
    cleanups.push(() => publisher.close());
    for (const w of localOwn) await publisher.publish('worker-added', w);
    const local = new Recorder(localDiscovery(localNs).events());
    cleanups.push(() => local.stop());

    const netns = Netns.create('relayloop');
    cleanups.push(() => netns.dispose());
    const agent = await Agent.start(netns);
    cleanups.push(() => agent.kill());
    agent.send({ op: 'publisher', id: 'lan', namespace: lanNs, options: { probe: false } });
    await agent.ok({ op: 'publish', id: 'lan', type: 'worker-added', worker: lanOwn });
    agent.send({
      op: 'subscribe',
      id: 'watch',
      namespace: lanNs,
      options: { requeryInterval: 1000, expireAfter: 5000 },
    });

    const fast = ['--no-probe', '--requery-interval', '1000', '--expire-after', '5000'];
    const toLan = relay(netns, [
      '--from',
      'local',
      '-n',
      localNs,
      '--to',
      'lan',
      '--to-namespace',
      lanNs,
      '--relay-id',
      'to-lan',
      ...fast,
    ]);
    cleanups.push(() => toLan.child.kill('SIGKILL'));
    const toLocal = relay(netns, [
      '--from',
      'lan',
      '-n',
      lanNs,
      '--to',
      'local',
      '--to-namespace',
      localNs,
      '--relay-id',
      'to-local',
      ...fast,
    ]);
    cleanups.push(() => toLocal.child.kill('SIGKILL'));

    const lanWorkers = (): Map<string, { extra: Record<string, string> }> => {
      const current = new Map<string, { extra: Record<string, string> }>();
      for (const report of agent.events('watch')) {
        if (report.type === 'worker-dropped') current.delete(report.worker!.uid);
        else current.set(report.worker!.uid, report.worker as { extra: Record<string, string> });
      }
      return current;
    };
    await waitFor(
      () => local.workers.size === 3 && lanWorkers().size === 3,
      () =>
        `three workers on each side (local ${local.workers.size}, LAN ${lanWorkers().size}; relays: ${toLan.stderr()} ${toLocal.stderr()})`,
      30_000,
    );
    const counts = { local: local.events.length, lan: agent.events('watch').length };
    await sleep(10_000);
    assert.equal(local.workers.size, 3);
    assert.equal(lanWorkers().size, 3);
    assert.equal(local.events.length, counts.local, 'no local event in 10 s');
    assert.equal(agent.events('watch').length, counts.lan, 'no LAN event in 10 s');
    for (const w of localOwn) {
      assert.equal(local.workers.get(w.uid)?.extra[RELAY_MARK], undefined);
      assert.equal(lanWorkers().get(w.uid)?.extra[RELAY_MARK], 'to-lan');
    }
    assert.equal(lanWorkers().get(lanOwn.uid)?.extra[RELAY_MARK], undefined);
    assert.equal(local.workers.get(lanOwn.uid)?.extra[RELAY_MARK], 'to-local');
    const skipped = [...toLan.items, ...toLocal.items]
      .filter((item) => item.type === 'relay-skipped')
      .map((item) => (item.type === 'relay-skipped' ? item.uid : ''));
    assert.deepEqual(skipped.sort(), uids.slice().sort(), "each relay skipped the other's copies, once each");

    for (const { child, exited, stderr } of [toLan, toLocal]) {
      child.kill('SIGTERM');
      assert.equal(await exited, 0, stderr());
    }
    await waitFor(() => local.workers.size === 2, 'the LAN worker withdrawn from local', 5000);
    await waitFor(() => lanWorkers().size === 1, 'the local workers withdrawn from the LAN (goodbyes)', 5000);
    await publisher.close();
    local.stop();
    await waitFor(
      () => residue(localNs, uids).length === 0,
      () => `nothing left: ${residue(localNs, uids).join(' ')}`,
      3000,
    );
  });
});
