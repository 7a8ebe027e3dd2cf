/**
 * Same-host interop with the real wool (`../shared/wool-peer`, `$WOOL_PEER`):
 * wool's own `LocalDiscovery` publisher and subscriber, in Python processes
 * (realwool_peer.py), against woolrx's localDiscovery in this process and in
 * child processes. Real /dev/shm, real notification files; every child is
 * bounded in time and killed by pid in `after`; nothing may be left behind.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { existsSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setImmediate as tick } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { localDiscovery } from '../../src/backends/local/index.js';
import type { DiscoveryEventType } from '../../src/events/types.js';
import type { WorkerInfo } from '../../src/model/types.js';
import { workerInfo } from '../../src/model/workerInfo.js';
import { Child, killChildren, Recorder, waitFor } from '../backends/local/helpers.js';
import { residue, shortHash, sweep, uniqueNamespace } from '../cli/children.js';
import { prng } from '../reliability/prng.js';
import { assertRealWool, canonical, killRealWool, RealWool } from './realWool.js';

const TMP = realpathSync(tmpdir());
const used: { namespace: string; uids: string[] }[] = [];

function namespace(label: string): { ns: string; uids: string[] } {
  const entry = { namespace: uniqueNamespace(`realwool-${label}`), uids: [] as string[] };
  used.push(entry);
  return { ns: entry.namespace, uids: entry.uids };
}

before(() => assertRealWool());

/** Every recorder made, so that `after` stops what a failed test left subscribed. */
const recorders: Recorder[] = [];
function record(discovery: ReturnType<typeof localDiscovery>, withDiagnostics = false): Recorder {
  const recorder = new Recorder(discovery.events(), withDiagnostics ? discovery.diagnostics : undefined);
  recorders.push(recorder);
  return recorder;
}

after(async () => {
  for (const recorder of recorders) recorder.stop();
  killRealWool();
  await killChildren();
  const left: string[] = [];
  for (const { namespace: ns, uids } of used) left.push(...sweep(ns, uids));
  assert.deepEqual(left, [], 'objects, locks or notification files left behind');
});

/**
 * What wool leaves in the temp directory by itself (it never removes them): its lock file and notification directory.
 */
function woolTmpFiles(ns: string): string[] {
  return [join(TMP, `wool-${ns}`), join(TMP, `wool-lock-${shortHash(ns)}`)].filter((path) => existsSync(path));
}

/** A worker with every field away from wool's defaults (pid: this process, alive). */
function richWorker(uids: string[], overrides: Partial<Parameters<typeof workerInfo>[0]> = {}): WorkerInfo {
  const uid = randomUUID();
  uids.push(uid);
  return workerInfo({
    uid,
    address: '[::1]:9000',
    pid: process.pid,
    version: 'ü-2',
    tags: ['gpu', 'fp16', 'zß'],
    extra: { zone: 'eu-1', rack: '7', 'naïve key': 'va=lue', empty: '' },
    secure: true,
    options: {
      maxReceiveMessageLength: 1024,
      maxSendMessageLength: 2_147_483_647,
      keepaliveTimeMs: 5000,
      keepaliveTimeoutMs: 1,
      keepalivePermitWithoutCalls: false,
      maxPingsWithoutData: 0,
      maxConcurrentStreams: 7,
      compression: 'gzip',
    },
    ...overrides,
  });
}

/** A worker with wool's defaults but for uid, address, pid and version. */
function plainWorker(uids: string[], overrides: Partial<Parameters<typeof workerInfo>[0]> = {}): WorkerInfo {
  const uid = randomUUID();
  uids.push(uid);
  return workerInfo({ uid, address: 'unix:/run/wool worker.sock', pid: process.pid, version: '0.13.1', ...overrides });
}

/** An update touching tags, extra, secure and options (and the version). */
function changed(worker: WorkerInfo): WorkerInfo {
  return workerInfo({
    ...worker,
    version: `${worker.version}+1`,
    tags: ['cpu'],
    extra: { 'ключ': 'значение', 'a=b': 'c' },
    secure: !worker.secure,
    options: { compression: 'deflate', maxConcurrentStreams: 2_000_000_000, keepaliveTimeMs: -1 },
  });
}

const json = (value: unknown): unknown => JSON.parse(JSON.stringify(value));
const summary = (recorder: Recorder): string[] =>
  recorder.events.map((e) => `${e.type} ${e.worker.uid} ${e.worker.version}`);

describe('local interop with the real wool', () => {
  it("wool → woolrx: a watching and a fresh woolrx subscriber see exactly wool's adds, updates and drops, every field intact", async () => {
    const { ns, uids } = namespace('w2rx');
    // Already watching before wool exists: notifications only (no poll), so wool's touch must drive it.
    const watching = localDiscovery(ns, { pollInterval: false });
    const early = record(watching, true);
    const wool = await RealWool.start('local', ns, { capacity: 8 }); // wool creates (owns) the segment
    const a = richWorker(uids);
    const b = plainWorker(uids);
    await wool.publish('worker-added', a);
    await waitFor(() => early.events.length === 1, 'a added');
    await wool.publish('worker-added', b);
    await waitFor(() => early.events.length === 2, 'b added');
    assert.deepEqual(json(early.workers.get(a.uid)), json(a));
    assert.deepEqual(json(early.workers.get(b.uid)), json(b));

    const fresh = record(localDiscovery(ns, { pollInterval: false }));
    await waitFor(() => fresh.workers.size === 2, "fresh subscriber's initial burst");
    const subscribers = [early, fresh];
    const step = async (type: DiscoveryEventType, worker: WorkerInfo, what: string): Promise<void> => {
      const counts = subscribers.map((s) => s.events.length);
      await wool.publish(type, worker);
      await waitFor(() => subscribers.every((s, i) => s.events.length === counts[i]! + 1), what);
    };
    const a2 = changed(a);
    await step('worker-updated', a2, 'a updated (tags, extra, secure, options)');
    const b2 = workerInfo({ ...b, version: '0.13.2', tags: ['late'] });
    await step('worker-added', b2, 'b re-added by wool: refreshed in place');
    for (const s of subscribers) {
      assert.deepEqual(json(s.workers.get(a.uid)), json(a2));
      assert.deepEqual(json(s.workers.get(b.uid)), json(b2));
    }
    // wool rewrites b's block with the same bytes: woolrx reports nothing.
    await wool.publish('worker-updated', b2);
    await step('worker-dropped', a2, 'a dropped');
    await step('worker-dropped', b2, 'b dropped');

    assert.deepEqual(summary(early), [
      `worker-added ${a.uid} ${a.version}`,
      `worker-added ${b.uid} ${b.version}`,
      `worker-updated ${a.uid} ${a2.version}`,
      `worker-updated ${b.uid} ${b2.version}`,
      `worker-dropped ${a.uid} ${a2.version}`,
      `worker-dropped ${b.uid} ${b2.version}`,
    ]);
    assert.deepEqual(
      summary(fresh).slice(0, 2).sort(),
      [`worker-added ${a.uid} ${a.version}`, `worker-added ${b.uid} ${b.version}`].sort(),
    );
    assert.deepEqual(summary(fresh).slice(2), summary(early).slice(2));
    for (const s of subscribers)
      for (const e of s.events)
        assert.deepEqual(
          json(e.worker),
          json([a, a2, b, b2].filter((w) => w.uid === e.worker.uid && w.version === e.worker.version)[0]),
        );
    assert.deepEqual(early.diagnostics, []);
    await wool.exit(); // the owner unlinks the segment
    early.stop();
    fresh.stop(); // the last woolrx one out removes the notification directory and wool's lock file
    assert.deepEqual(residue(ns, uids), []);
  });

  it("woolrx → wool: a watching and a fresh wool subscriber end at woolrx's state after every step (wool re-reports unchanged workers)", async () => {
    const { ns, uids } = namespace('rx2w');
    const publisher = localDiscovery(ns).publisher(); // woolrx creates the segment
    const a = richWorker(uids);
    const b = plainWorker(uids);
    const watching = await RealWool.start('local', ns);
    try {
      await publisher.publish('worker-added', a);
      await watching.subscribe('s'); // no poll_interval: woolrx's touches alone must wake it
      await watching.waitForState('s', [a], "a, at wool's first scan");
      await publisher.publish('worker-added', b);
      await watching.waitForState('s', [a, b], 'b added');
      const fresh = await RealWool.start('local', ns);
      await fresh.subscribe('s');
      await fresh.waitForState('s', [a, b], 'fresh wool subscriber');
      const peers = [watching, fresh];
      const a2 = changed(a);
      await publisher.publish('worker-updated', a2);
      for (const p of peers) await p.waitForState('s', [a2, b], 'a updated (tags, extra, secure, options)');
      const b2 = workerInfo({ ...b, version: '0.13.2', tags: ['late'] });
      await publisher.publish('worker-added', b2); // a re-add refreshes in place
      for (const p of peers) await p.waitForState('s', [a2, b2], 'b refreshed');
      await publisher.publish('worker-dropped', a2);
      for (const p of peers) await p.waitForState('s', [b2], 'a dropped');
      await publisher.close();
      for (const p of peers) await p.waitForState('s', [], 'b withdrawn by close()');
      for (const p of peers) {
        assert.deepEqual(p.errors(), []);
        const types = p.events('s').map((r) => `${r.type} ${r.worker!.uid}`);
        // What wool does: every re-scan reports each present worker as
        // worker-updated, changed or not; but never a spurious add or drop.
        assert.equal(types.filter((t) => t.startsWith('worker-added')).length, 2, types.join('\n'));
        assert.equal(types.filter((t) => t.startsWith('worker-dropped')).length, 2, types.join('\n'));
        for (const r of p.events('s'))
          assert.ok(
            [a, a2, b, b2].some((w) => canonical([w]) === canonical([r.worker!])),
            `wool read a worker woolrx never wrote: ${JSON.stringify(r.worker)}`,
          );
      }
      await fresh.exit();
      await watching.exit();
    } finally {
      await publisher.close();
    }
    // woolrx created the segment and removed it when its last worker left; wool never removes its own tmp files.
    assert.deepEqual(
      residue(ns, uids).filter((path) => !woolTmpFiles(ns).includes(path)),
      [],
    );
    for (const path of woolTmpFiles(ns)) rmSync(path, { recursive: true, force: true });
  });

  /**
   * One side's churn: `count` operations on its own `pool` of uids, from a
   * seeded PRNG — add, update, re-add (refresh in place), drop — and the
   * state they leave (the truth).
   */
  function churn(seed: number, label: string, pool: readonly string[], count: number) {
    const random = prng(seed);
    const truth = new Map<string, WorkerInfo>();
    const ops: { type: DiscoveryEventType; worker: WorkerInfo }[] = [];
    for (let i = 0; i < count; i++) {
      const uid = pool[Math.floor(random() * pool.length)]!;
      const worker = workerInfo({
        uid,
        address: `127.0.0.1:${20_000 + Math.floor(random() * 10_000)}`,
        pid: process.pid,
        version: `${label}-${i}`,
        tags: random() < 0.5 ? [] : [`t${Math.floor(random() * 4)}`],
        extra: random() < 0.5 ? {} : { k: String(i) },
        secure: random() < 0.5,
      });
      const r = random();
      const type: DiscoveryEventType = !truth.has(uid)
        ? 'worker-added'
        : r < 0.5
          ? 'worker-updated'
          : r < 0.65
            ? 'worker-added'
            : 'worker-dropped';
      if (type === 'worker-dropped') truth.delete(uid);
      else truth.set(uid, worker);
      ops.push({ type, worker });
    }
    return { ops, truth };
  }

  for (const creator of ['wool', 'woolrx'] as const) {
    for (const last of ['wool', 'woolrx'] as const) {
      it(`mixed: wool and woolrx publishers churn 3,000 operations (${creator} created the segment); woolrx subscribers end at the truth; ${last} leaves last; nothing is left${last === 'wool' ? " but wool's own tmp files" : ''}`, async () => {
        const { ns, uids } = namespace(`mix-${creator}-${last}`);
        const woolPool = Array.from({ length: 24 }, () => randomUUID());
        const rxPool = Array.from({ length: 24 }, () => randomUUID());
        uids.push(...woolPool, ...rxPool);
        const seed = (creator === 'wool' ? 1 : 2) + (last === 'wool' ? 10 : 20);
        const woolSide = churn(seed, 'wool', woolPool, 1500);
        const rxSide = churn(seed + 100, 'rx', rxPool, 1500);
        const subscribers = [
          localDiscovery(ns, { pollInterval: false }),
          localDiscovery(ns, { pollInterval: 200 }),
        ].map((d) => record(d));
        const publisher = localDiscovery(ns).publisher();
        let wool: RealWool;
        if (creator === 'wool') {
          wool = await RealWool.start('local', ns, { capacity: 64 });
        } else {
          await publisher.publish('worker-added', rxSide.ops[0]!.worker);
          await publisher.publish('worker-dropped', rxSide.ops[0]!.worker);
          wool = await RealWool.start('local', ns); // attaches: woolrx's capacity (128)
        }
        const woolRun = wool.publishMany(woolSide.ops);
        for (const [i, { type, worker }] of rxSide.ops.entries()) {
          await publisher.publish(type, worker);
          if (i % 8 === 0) await tick();
        }
        const woolDone = await woolRun;
        assert.deepEqual(
          [woolDone.count, woolDone.error],
          [woolSide.ops.length, undefined],
          "wool's publisher ran every operation",
        );
        const truth = canonical([...woolSide.truth.values(), ...rxSide.truth.values()]);
        for (const [i, s] of subscribers.entries()) {
          await waitFor(
            () => canonical([...s.workers.values()]) === truth,
            `woolrx subscriber ${i} at the truth`,
            20_000,
          ).catch(() => {
            assert.equal(canonical([...s.workers.values()]), truth, `woolrx subscriber ${i}`);
          });
          assert.equal(s.error, undefined);
        }

        const woolLeaves = async (): Promise<void> => {
          // A wool pool withdraws its workers, then leaves its `with` blocks.
          await wool.publishMany(
            [...woolSide.truth.values()].map((worker) => ({ type: 'worker-dropped' as const, worker })),
          );
          await wool.exit();
        };
        const woolrxLeaves = async (): Promise<void> => {
          await publisher.close();
          for (const s of subscribers) s.stop();
        };
        if (last === 'wool') {
          await woolrxLeaves();
          await woolLeaves();
        } else {
          await woolLeaves();
          // wool's owner unlinks the segment at exit, woolrx's workers in it or not (and touches nothing):
          // the polling woolrx subscriber reports them dropped at its next poll.
          const remaining = creator === 'wool' ? [] : [...rxSide.truth.values()];
          await waitFor(
            () => canonical([...subscribers[1]!.workers.values()]) === canonical(remaining),
            "wool's workers gone",
          );
          await publisher.close();
          await waitFor(() => subscribers.every((s) => s.workers.size === 0), 'every worker gone');
          await woolrxLeaves();
        }
        const left = residue(ns, uids);
        const woolOwn = woolTmpFiles(ns);
        if (last === 'wool') {
          // wool never removes its lock file and notification directory (a wool-only run leaves them too).
          // A segment woolrx created and wool left last stays: woolrx's last one out does not remove a
          // segment holding wool's workers, and wool unlinks only segments it created (docs/interop-wool.md).
          const segment = `/dev/shm/${shortHash(ns)}`;
          assert.deepEqual(
            left.filter((path) => !woolOwn.includes(path)),
            creator === 'wool' ? [] : [segment],
            "nothing but wool's own tmp files",
          );
          if (creator === 'woolrx') {
            // The next woolrx process to come and go removes the now empty segment, and wool's files with it.
            const passer = record(localDiscovery(ns));
            await tick();
            passer.stop();
            assert.deepEqual(residue(ns, uids), [], 'a later woolrx subscriber cleaned up');
          }
          for (const path of woolTmpFiles(ns)) rmSync(path, { recursive: true, force: true });
        } else {
          assert.deepEqual(left, [], 'nothing left in /dev/shm or the temp directory');
        }
      });
    }
  }

  it('ownership across languages: a re-add by the other side does not take the worker away when that side exits', async () => {
    const { ns, uids } = namespace('own');
    const watcher = record(localDiscovery(ns, { pollInterval: false }));
    // (1) woolrx registers w; a wool process re-adds it (refresh in place) and exits.
    const w = plainWorker(uids);
    const publisher = localDiscovery(ns).publisher();
    await publisher.publish('worker-added', w);
    const readder = await RealWool.start('local', ns);
    const wByWool = workerInfo({ ...w, version: 'by-wool' });
    await readder.publish('worker-added', wByWool);
    await readder.exit();
    await waitFor(() => watcher.workers.get(w.uid)?.version === 'by-wool', "wool's refresh");
    const fresh = record(localDiscovery(ns, { pollInterval: false }));
    await waitFor(() => fresh.workers.size === 1, 'fresh subscriber');
    assert.deepEqual(json(fresh.workers.get(w.uid)), json(wByWool), 'still registered after the wool process exited');
    fresh.stop();
    const scanner = await RealWool.start('local', ns);
    await scanner.subscribe('s', 0.2);
    await scanner.waitForState('s', [wByWool], 'wool still reads it');
    await scanner.exit();
    await publisher.close(); // its owner withdraws it
    await waitFor(() => !watcher.workers.has(w.uid), 'withdrawn by its owner');

    // (2) wool registers v; a woolrx process re-adds it (refresh in place) and exits.
    const v = plainWorker(uids);
    const owner = await RealWool.start('local', ns);
    await owner.subscribe('s');
    await owner.publish('worker-added', v);
    const child = new Child('publisher.ts', [ns, JSON.stringify({ pollInterval: false })]);
    await waitFor(() => child.messages.length > 0, 'woolrx child ready');
    const vByRx = workerInfo({ ...v, version: 'by-woolrx' });
    await child.call({ op: 'publish', type: 'worker-added', worker: vByRx });
    await child.call({ op: 'exit' }); // close(), then the process ends
    assert.equal(await child.exited, 0);
    await owner.waitForState('s', [vByRx], "wool still has it, with woolrx's refresh");
    await waitFor(() => watcher.workers.get(v.uid)?.version === 'by-woolrx', 'woolrx still has it');
    assert.deepEqual(
      owner.events('s').filter((r) => r.type === 'worker-dropped'),
      [],
      'never dropped',
    );
    assert.deepEqual(watcher.of('worker-dropped', v.uid), [], 'never dropped');
    await owner.publish('worker-dropped', v);
    await waitFor(() => !watcher.workers.has(v.uid), 'dropped by its owner');
    await owner.exit();
    watcher.stop();
    assert.deepEqual(
      watcher.events.map((e) => `${e.type} ${e.worker.uid} ${e.worker.version}`),
      [
        `worker-added ${w.uid} ${w.version}`,
        `worker-updated ${w.uid} by-wool`,
        `worker-dropped ${w.uid} by-wool`,
        `worker-added ${v.uid} ${v.version}`,
        `worker-updated ${v.uid} by-woolrx`,
        `worker-dropped ${v.uid} by-woolrx`,
      ],
    );
    assert.deepEqual(residue(ns, uids), []);
  });
});
