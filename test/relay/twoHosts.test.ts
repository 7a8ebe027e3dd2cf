/**
 * `woolrx relay` between two hosts on one machine (hosts.ts): each host has
 * its own network, `/dev/shm` and temp directory; the real wool
 * (`../shared/wool-peer`) publishes local workers on 127.0.0.1 on each; the
 * built CLI relays them — into one etcd both hosts reach, and onto the LAN
 * between the hosts, where wool's own LAN subscriber lists them. Every
 * process is a child bounded in time; every wait says what it awaited.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import type { WorkerInfo } from '../../src/model/types.js';
import { workerInfo } from '../../src/model/workerInfo.js';
import { RELAY_MARK } from '../../src/relay/RELAY_MARK.js';
import { Agent, type Report } from '../backends/lan/agent.js';
import { uniqueNamespace } from '../cli/children.js';
import { assertRealWool, killRealWool, RealWool } from '../interop/realWool.js';
import { assertBuiltCli, BUILT_CLI, startTwoHosts, type Host, type TwoHosts } from './hosts.js';

const SUBNET = 43;
/** The relays' etcd lease TTL, seconds: how long a SIGKILLed relay's workers outlive it. */
const TTL = 2;
const PORTS = [7301, 7302, 7303];

const agents: Agent[] = [];

before(() => {
  assertBuiltCli();
  assertRealWool();
});
after(() => {
  for (const agent of agents) agent.kill('SIGKILL');
  killRealWool();
});

/**
 * Runs `test` on two fresh hosts, torn down after it whatever happens (so a failure leaves nothing for the next test).
 */
async function withTwoHosts(purpose: string, test: (hosts: TwoHosts) => Promise<void>): Promise<void> {
  const hosts = await startTwoHosts(purpose, SUBNET);
  try {
    await test(hosts);
  } finally {
    for (const agent of agents.splice(0)) agent.kill('SIGKILL');
    killRealWool();
    await hosts.dispose();
  }
}

/** A JSON-lines child tracked for teardown. */
async function attach(child: ReturnType<Host['spawn']>): Promise<Agent> {
  const agent = await Agent.attach(child);
  agents.push(agent);
  return agent;
}

/** Three workers of one wool process, bound to loopback (what a wool pool on one host does). */
function woolWorkers(wool: RealWool, label: string): WorkerInfo[] {
  return PORTS.map((port, i) =>
    workerInfo({
      uid: randomUUID(),
      address: `127.0.0.1:${port}`,
      pid: wool.pid,
      version: '0.13.1',
      tags: ['gpu', `host-${label}`],
      extra: { slot: String(i) },
    }),
  );
}

/**
 * What a subscriber on another host should see of `worker` relayed from `host`: its address on the host's IP, the
 * relay's mark aside.
 */
function relayedView(worker: WorkerInfo, host: Host): string {
  const port = worker.address.slice(worker.address.lastIndexOf(':') + 1);
  return view({ ...worker, address: `${host.address}:${port}` });
}

/** A worker's fields compared here (the relay mark and channel options left out), as canonical JSON. */
function view(worker: Pick<WorkerInfo, 'uid' | 'address' | 'pid' | 'version' | 'tags' | 'extra' | 'secure'>): string {
  const { [RELAY_MARK]: _mark, ...extra } = worker.extra;
  return JSON.stringify({
    uid: worker.uid,
    address: worker.address,
    pid: worker.pid,
    version: worker.version,
    tags: [...worker.tags].sort(),
    extra: Object.fromEntries(Object.entries(extra).sort(([x], [y]) => (x < y ? -1 : 1))),
    secure: worker.secure,
  });
}

/** The worker events `woolrx watch --json` printed. */
function workerEvents(watch: Agent): (Report & { worker: WorkerInfo })[] {
  return watch.reports.filter(
    (r): r is Report & { worker: WorkerInfo } =>
      typeof r.type === 'string' && r.type.startsWith('worker-') && r.worker !== undefined,
  );
}

/** The state the watch's events add up to: uid → worker. */
function watchState(watch: Agent): Map<string, WorkerInfo> {
  const state = new Map<string, WorkerInfo>();
  for (const r of workerEvents(watch)) {
    if (r.type === 'worker-dropped') state.delete(r.worker.uid);
    else state.set(r.worker.uid, r.worker);
  }
  return state;
}

/** Event types per uid, in order, for the given uids. */
function history(watch: Agent, uids: readonly string[]): Record<string, string[]> {
  return Object.fromEntries(
    uids.map((uid) => [
      uid,
      workerEvents(watch)
        .filter((r) => r.worker.uid === uid)
        .map((r) => r.type!.slice('worker-'.length)),
    ]),
  );
}

function describeState(state: Map<string, WorkerInfo>): string {
  return [...state.values()].map(view).sort().join('\n    ');
}

/** Waits until the watch's state is exactly `expected` (views, relay mark set on every worker). */
async function waitForWatchState(
  watch: Agent,
  expected: readonly string[],
  what: string,
  timeoutMs = 15_000,
): Promise<void> {
  const want = [...expected].sort().join('\n    ');
  await watch.waitUntil(
    () => {
      const state = watchState(watch);
      return describeState(state) === want && [...state.values()].every((w) => RELAY_MARK in w.extra)
        ? true
        : undefined;
    },
    () => `${what}: the etcd subscriber's state\n    ${describeState(watchState(watch))}\n  wanted\n    ${want}`,
    timeoutMs,
  );
}

/** Waits for a relay's NDJSON status line saying it relays `relayed` workers, in sync with an up target. */
async function waitForRelayed(relay: Agent, relayed: number, what: string, timeoutMs = 15_000): Promise<void> {
  await relay.waitFor(
    (r) =>
      r.type === ('relay-status' as string) &&
      (r as { relayed?: number }).relayed === relayed &&
      (r as { target?: string }).target === 'up' &&
      (r as { synced?: boolean }).synced === true,
    `${what}: a relay-status line with relayed ${relayed}, target up, synced`,
    timeoutMs,
  );
}

/** How many leases etcd holds (each relay's publisher has one). */
function leases(host: Host, endpoint: string): number {
  return ((host.etcdJson(endpoint, '/v3/lease/leases', {}) as { leases?: unknown[] }).leases ?? []).length;
}

/** SIGTERMs a CLI child and waits (bounded) for it to exit; returns how it exited. */
async function stop(
  agent: Agent,
  what: string,
  timeoutMs = 10_000,
): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  agent.kill('SIGTERM');
  const exited = await Promise.race([agent.exited, sleep(timeoutMs).then(() => undefined)]);
  assert.ok(exited !== undefined, `${what} did not exit within ${timeoutMs} ms of SIGTERM; ${agent.describe()}`);
  return exited;
}

/**
 * A woolrx process that comes and goes on `host` (`woolrx list`): leaving last, it removes what wool leaves in the temp
 * directory.
 */
function passBy(host: Host, namespace: string): void {
  const list = host.run(process.execPath, [BUILT_CLI, 'list', '--namespace', namespace, '--json']);
  assert.equal(list.status, 0, `woolrx list on host ${host.label}: ${list.stderr}`);
  assert.equal(list.stdout, '', `no worker left on host ${host.label}`);
}

function relayArgs(namespace: string, host: Host, to: readonly string[]): string[] {
  return ['relay', '--from', 'local', '--namespace', namespace, ...to, '--advertise-host', host.address, '--json'];
}

describe('woolrx relay between two hosts (own network, /dev/shm and temp directory each)', { timeout: 90_000 }, () => {
  it("local → etcd: both hosts' wool workers in etcd at their host's IP; an update is one worker-updated; a withdrawal drops; a SIGKILLed relay's workers go after the TTL and come back once when it restarts; one restarted at once converges within its old lease's expiry; a stopped relay withdraws at once; nothing left on either host", () =>
    withTwoHosts('rle', async (hosts) => {
      const { a, b, endpoint } = hosts;
      const namespace = uniqueNamespace('relay-etcd');
      const toEtcd = ['--to', 'etcd', '--endpoints', endpoint, '--ttl', String(TTL)];
      const watch = await attach(
        hosts.nodeInEtcdHost([
          BUILT_CLI,
          'watch',
          '--backend',
          'etcd',
          '--endpoints',
          endpoint,
          '--namespace',
          namespace,
          '--json',
        ]),
      );
      await watch.waitFor((r) => r.type === ('synced' as string), "the etcd subscriber's initial state (empty)");

      const woolA = await RealWool.start('local', namespace, { netns: a });
      const woolB = await RealWool.start('local', namespace, { netns: b });
      const onA = woolWorkers(woolA, 'a');
      const onB = woolWorkers(woolB, 'b');
      for (const worker of onA) await woolA.publish('worker-added', worker);
      for (const worker of onB) await woolB.publish('worker-added', worker);

      const startRelay = (host: Host): Promise<Agent> => attach(host.woolrx(relayArgs(namespace, host, toEtcd)));
      let relayA = await startRelay(a);
      let relayB = await startRelay(b);
      const expected = new Map([
        ...onA.map((w) => [w.uid, relayedView(w, a)] as const),
        ...onB.map((w) => [w.uid, relayedView(w, b)] as const),
      ]);
      await waitForWatchState(watch, [...expected.values()], "all 6 wool workers, each at its host's IP");
      await waitForRelayed(relayA, 3, 'relay on host a');
      await waitForRelayed(relayB, 3, 'relay on host b');
      const uids = [...expected.keys()];
      assert.deepEqual(
        Object.values(history(watch, uids)).filter((types) => types.join() !== 'added'),
        [],
        'one worker-added per worker, nothing else',
      );

      // A wool update: one worker-updated in etcd.
      const [a0, a1, a2] = onA as [WorkerInfo, WorkerInfo, WorkerInfo];
      const a0v2 = workerInfo({ ...a0, version: '0.13.2', tags: ['gpu', 'host-a', 'busy'] });
      await woolA.publish('worker-updated', a0v2);
      expected.set(a0.uid, relayedView(a0v2, a));
      await waitForWatchState(watch, [...expected.values()], "wool's update of a worker on host a");
      // A wool withdrawal: dropped in etcd.
      const [b0] = onB as [WorkerInfo];
      await woolB.publish('worker-dropped', b0);
      expected.delete(b0.uid);
      await waitForWatchState(watch, [...expected.values()], "wool's withdrawal of a worker on host b");
      await sleep(500); // anything more would show by now
      assert.deepEqual(history(watch, [a0.uid, b0.uid]), {
        [a0.uid]: ['added', 'updated'],
        [b0.uid]: ['added', 'dropped'],
      });

      // kill -9 of host a's relay: its workers leave etcd when the lease expires, not before.
      const killedAt = Date.now();
      relayA.kill('SIGKILL');
      await relayA.exited;
      for (const w of onA) expected.delete(w.uid);
      await waitForWatchState(
        watch,
        [...expected.values()],
        `host a's workers dropped after the relay's lease (TTL ${TTL} s) expired`,
        TTL * 1000 + 5000,
      );
      const gone = Date.now() - killedAt;
      assert.ok(
        gone >= 1000,
        `host a's workers stayed in etcd until the lease expired (dropped ${gone} ms after the kill; TTL ${TTL} s, kept alive every TTL/3)`,
      );

      // Restarted: they come back, each added once.
      const before = workerEvents(watch).length;
      relayA = await startRelay(a);
      for (const w of [a0v2, a1, a2]) expected.set(w.uid, relayedView(w, a));
      await waitForWatchState(watch, [...expected.values()], "host a's workers back after the relay restarted");
      await waitForRelayed(relayA, 3, 'restarted relay on host a');
      await sleep(1000);
      const since = workerEvents(watch).slice(before);
      assert.deepEqual(
        since.map((r) => `${r.type} ${r.worker.uid}`).sort(),
        [a0.uid, a1.uid, a2.uid].map((uid) => `worker-added ${uid}`).sort(),
        "after the restart: one worker-added per worker of host a, no duplicate, nothing on host b's",
      );

      // kill -9 of host b's relay and an immediate restart (the same relay name, by default), before the
      // first run's lease expired: the target converges within that lease's expiry and stays so. Each
      // worker either keeps its key (no event) or is registered again once the old lease expires (one
      // drop, then one add): never a drop alone, never a second add.
      const quick = workerEvents(watch).length;
      const onBNow = onB.filter((w) => expected.has(w.uid)).map((w) => w.uid);
      relayB.kill('SIGKILL');
      await relayB.exited;
      relayB = await startRelay(b);
      await waitForRelayed(relayB, 2, 'relay on host b, restarted at once');
      await sleep(TTL * 1000 + 1500); // past the expiry of the first run's lease
      await waitForWatchState(watch, [...expected.values()], 'the same workers after the quick restart', 1000);
      const sinceKill = workerEvents(watch).slice(quick);
      for (const uid of onBNow) {
        const types = sinceKill.filter((r) => r.worker.uid === uid).map((r) => r.type);
        assert.ok(
          types.length === 0 || types.join() === 'worker-dropped,worker-added',
          `worker ${uid} after a quick restart: ${types.join(', ') || 'no event'}`,
        );
      }
      assert.deepEqual(
        sinceKill.filter((r) => !onBNow.includes(r.worker.uid)),
        [],
        "nothing happened to host a's workers",
      );
      await sleep(500);
      assert.equal(workerEvents(watch).length, quick + sinceKill.length, 'and nothing more once it converged');

      // Host b's relay stops (SIGTERM): it withdraws its workers at once (revoking its lease), not at the lease's
      // expiry.
      assert.equal(leases(a, endpoint), 2, 'one lease per running relay');
      const stoppedAt = Date.now();
      assert.deepEqual(
        await stop(relayB, 'relay on host b'),
        { code: 0, signal: null },
        `relay on host b exits 0 on SIGTERM; ${relayB.describe()}`,
      );
      assert.equal(leases(a, endpoint), 1, 'the stopped relay revoked its lease before it exited');
      for (const w of onB) expected.delete(w.uid);
      await waitForWatchState(
        watch,
        [...expected.values()],
        "host b's workers withdrawn by its stopped relay",
        TTL * 1000,
      );
      assert.ok(
        Date.now() - stoppedAt < TTL * 1000,
        `withdrawn ${Date.now() - stoppedAt} ms after SIGTERM, before the lease could expire`,
      );
      // Host a's wool pool leaves (its owner unlinks the segment): the relay withdraws its workers.
      await woolA.exit();
      await waitForWatchState(watch, [], "host a's workers withdrawn once wool left host a");
      assert.deepEqual(
        await stop(relayA, 'relay on host a'),
        { code: 0, signal: null },
        `relay on host a exits 0 on SIGTERM; ${relayA.describe()}`,
      );
      for (const [relay, label] of [
        [relayA, 'a'],
        [relayB, 'b'],
      ] as const) {
        assert.deepEqual(
          relay.reports.filter((r) => r.type === ('relay-error' as string)),
          [],
          `relay on host ${label} reported no error`,
        );
      }
      assert.deepEqual(await stop(watch, 'the etcd subscriber'), { code: 0, signal: null });
      assert.equal(watch.stderr.join('\n'), '', 'the etcd subscriber printed no diagnostic');
      await woolB.exit();
      // On host a woolrx (the relay) left last: nothing of wool's or woolrx's is left. On host b wool left
      // last, leaving its lock file and notification directory (as a wool-only run does); a woolrx process
      // coming and going after it removes them.
      assert.deepEqual(a.leftovers(), [], "host a's /dev/shm and temp directory are empty");
      passBy(b, namespace);
      assert.deepEqual(b.leftovers(), [], "host b's /dev/shm and temp directory are empty");
    }));

  it("local → LAN: wool's own LAN subscriber on host b lists host a's local wool workers (at host a's IP) through a relay on host a, and their withdrawal", () =>
    withTwoHosts('rll', async ({ a, b }) => {
      const namespace = uniqueNamespace('relay-lan');
      const subscriber = await RealWool.start('lan', namespace, { netns: b });
      await subscriber.subscribe('s');
      const wool = await RealWool.start('local', namespace, { netns: a });
      const workers = woolWorkers(wool, 'a');
      for (const worker of workers) await wool.publish('worker-added', worker);
      const relay = await attach(a.woolrx(relayArgs(namespace, a, ['--to', 'lan'])));

      const expected = new Map(workers.map((w) => [w.uid, relayedView(w, a)] as const));
      const woolSees = async (what: string, timeoutMs = 15_000): Promise<void> => {
        const want = [...expected.values()].sort().join('\n    ');
        const seen = (): string => [...subscriber.state('s').values()].map(view).sort().join('\n    ');
        await subscriber.agent.waitUntil(
          () =>
            seen() === want && [...subscriber.state('s').values()].every((w) => RELAY_MARK in w.extra)
              ? true
              : undefined,
          () =>
            `${what}: wool's LAN subscriber on host b lists\n    ${seen()}\n  wanted\n    ${want}\n  relay: ${relay.describe()}`,
          timeoutMs,
        );
      };
      await woolSees("host a's 3 wool workers, at host a's IP");
      await waitForRelayed(relay, 3, 'relay on host a');

      const [w0] = workers as [WorkerInfo];
      await wool.publish('worker-dropped', w0);
      expected.delete(w0.uid);
      await woolSees('a wool withdrawal on host a', 5000);

      // The relay stops: its goodbyes withdraw the rest from wool's LAN view.
      assert.deepEqual(
        await stop(relay, 'relay on host a'),
        { code: 0, signal: null },
        `relay exits 0 on SIGTERM; ${relay.describe()}`,
      );
      expected.clear();
      await woolSees("the relay's goodbyes", 5000);
      assert.deepEqual(subscriber.errors(), []);
      // wool's local pool leaves last (its temp files stay, as in a wool-only run); a woolrx process comes and goes
      // after it.
      await wool.exit();
      await subscriber.exit();
      passBy(a, namespace);
      assert.deepEqual(a.leftovers(), [], "host a's /dev/shm and temp directory are empty");
      assert.deepEqual(b.leftovers(), [], "host b's /dev/shm and temp directory are empty");
    }));
});
