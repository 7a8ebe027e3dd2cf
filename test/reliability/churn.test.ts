// Churn on the local backend, bounded for CI. Several publisher
// processes make thousands of random add / update / re-add / drop
// operations; subscriber processes (some busy 60 ms of every 100 ms) watch
// from the start, others join mid-churn; wool processes (the real wool,
// test/interop/woolPeerProcess.ts) come and go in the same namespace. Afterwards
// every subscriber's folded state equals the truth, and per uid no event is
// duplicated, out of order, spurious or resurrected (test/reliability/
// streamCheck.ts); an idle subscriber that watched from the start saw every
// change (nothing lost: its per-uid sequence is exactly the published one).
import { prng } from './prng.js';
import { killWoolPeers, startWoolPeer, withdrawWoolPeer, type WoolPeer } from '../interop/woolPeerProcess.js';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { shortHash } from '../../src/backends/local/index.js';
import type { DiscoveryEvent, DiscoveryEventType } from '../../src/events/types.js';
import { sameWorker } from '../../src/model/sameWorker.js';
import type { WorkerInfo } from '../../src/model/types.js';
import { workerInfo } from '../../src/model/workerInfo.js';
import {
  assertClean,
  Child,
  killChildren,
  strayTestFiles,
  TMP,
  uniqueNamespace,
  waitFor,
} from '../backends/local/helpers.js';
import { checkStream, serialOf } from './streamCheck.js';

const PUBLISHERS = 3;
const POOL = 16; // uids per publisher
const ROUNDS = 10;
const OPS_PER_ROUND = 100; // per publisher: 3,000 operations in all
const LATE_AFTER_ROUND = 3; // late subscribers join while round 4 runs
const WOOL_PEERS = 4;
const BUSY = '../../../reliability/children/busySubscriber.ts';

const namespace = uniqueNamespace('churn16');
const allUids: string[] = [];

after(async () => {
  killWoolPeers();
  await killChildren();
  // wool's flock file (temp directory) is wool's to leave behind.
  rmSync(join(TMP, `wool-lock-${shortHash(namespace)}`), { force: true });
  await assertClean(namespace, allUids);
  assert.deepEqual(strayTestFiles(), [], 'nothing of these tests left in /dev/shm or the temp directory');
});

type Op = { type: DiscoveryEventType; worker: WorkerInfo };
type Expected = { type: DiscoveryEventType; serial: number };

/** One publisher's operations, round by round; the truth and each uid's expected events are kept up to date. */
function plan(
  publisher: number,
  truth: Map<string, WorkerInfo>,
  expected: Map<string, Expected[]>,
  published: Set<string>,
  perRound: number[],
): Op[][] {
  const random = prng(0x16c0de + publisher);
  const uids = Array.from(
    { length: POOL },
    (_, i) =>
      `${(publisher + 0xc1).toString(16).padStart(8, '0')}-0000-4000-8000-${(i + 1).toString(16).padStart(12, '0')}`,
  );
  allUids.push(...uids);
  const serials = new Map<string, number>();
  const make = (uid: string): WorkerInfo => {
    const serial = (serials.get(uid) ?? 0) + 1;
    serials.set(uid, serial);
    published.add(`${uid} v${serial}`);
    return workerInfo({
      uid,
      address: `127.0.0.1:${20_000 + ((serial * 7) % 10_000)}`,
      pid: process.pid,
      version: `v${serial}`,
      tags: random() < 0.5 ? ['gpu'] : [],
      extra: { publisher: String(publisher) },
    });
  };
  let round = -1;
  const note = (uid: string, type: DiscoveryEventType, worker: WorkerInfo): void => {
    perRound[round] = (perRound[round] ?? 0) + 1;
    const list = expected.get(uid) ?? [];
    list.push({ type, serial: serialOf(worker) ?? -1 });
    expected.set(uid, list);
  };
  return Array.from({ length: ROUNDS }, () => {
    round += 1;
    const ops: Op[] = [];
    for (let n = 0; n < OPS_PER_ROUND; n += 1) {
      const uid = uids[Math.floor(random() * POOL)] ?? '';
      const current = truth.get(uid);
      const roll = random();
      if (current === undefined) {
        const worker = make(uid);
        ops.push({ type: 'worker-added', worker });
        note(uid, 'worker-added', worker);
        truth.set(uid, worker);
      } else if (roll < 0.3) {
        const worker = make(uid);
        ops.push({ type: 'worker-updated', worker });
        note(uid, 'worker-updated', worker);
        truth.set(uid, worker);
      } else if (roll < 0.45) {
        ops.push({ type: 'worker-added', worker: current }); // re-add, same metadata: no event
      } else if (roll < 0.6) {
        const worker = make(uid);
        ops.push({ type: 'worker-added', worker }); // re-add with new metadata: an update
        note(uid, 'worker-updated', worker);
        truth.set(uid, worker);
      } else {
        ops.push({ type: 'worker-dropped', worker: current });
        note(uid, 'worker-dropped', current);
        truth.delete(uid);
      }
    }
    return ops;
  });
}

/** A wool process (the real wool) registering one worker in woolrx's segment. */
async function woolPeer(uid: string): Promise<WoolPeer> {
  return startWoolPeer(namespace, workerInfo({ uid, address: '127.0.0.1:7300', pid: process.pid, version: '1.0.0' }));
}

const eventsOf = (child: Child): DiscoveryEvent[] =>
  child.messages.flatMap((m) =>
    (m as { event?: DiscoveryEvent }).event ? [(m as { event: DiscoveryEvent }).event] : [],
  );

function equals(state: ReadonlyMap<string, WorkerInfo>, truth: ReadonlyMap<string, WorkerInfo>): boolean {
  return (
    state.size === truth.size &&
    [...truth].every(([uid, worker]) => state.has(uid) && sameWorker(state.get(uid) as WorkerInfo, worker))
  );
}

describe('local backend churn, mixed with wool processes', () => {
  it(`${PUBLISHERS} publishers × ${ROUNDS * OPS_PER_ROUND} operations, ${WOOL_PEERS} wool peers, 6 subscribers (3 busy, 2 joining mid-churn)`, async () => {
    const started = Date.now();
    const subscriber = (busy: boolean): Child =>
      new Child(BUSY, [namespace, JSON.stringify({ capacity: 128 }), busy ? '60' : '0', '100']);
    const early = [subscriber(false), subscriber(false), subscriber(true), subscriber(true)];
    const publishers = Array.from(
      { length: PUBLISHERS },
      () => new Child('publisher.ts', [namespace, JSON.stringify({ capacity: 128 })]),
    );
    await waitFor(() => [...early, ...publishers].every((c) => c.messages.length > 0), 'children ready', 30_000);

    const truth = new Map<string, WorkerInfo>();
    const expected = new Map<string, Expected[]>();
    const published = new Set<string>();
    const plans = publishers.map(() => [] as Op[][]);
    const truths = publishers.map(() => new Map<string, WorkerInfo>());
    /** Events each round makes (for the pacing below). */
    const perRound: number[] = [];
    for (const [i] of publishers.entries())
      plans[i] = plan(i, truths[i] ?? new Map<string, WorkerInfo>(), expected, published, perRound);
    const woolrxEvents = (child: Child): number =>
      eventsOf(child).filter(({ worker }) => serialOf(worker) !== undefined).length;
    let due = 0;

    const woolUids: string[] = Array.from({ length: WOOL_PEERS }, () => randomUUID());
    allUids.push(...woolUids);
    const woolAlive = new Map<string, WoolPeer>();
    let late: Child[] = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      const running = Promise.all(
        publishers.map((child, i) => child.call({ op: 'run', workers: plans[i]?.[round] ?? [] })),
      );
      if (round === LATE_AFTER_ROUND) {
        late = [subscriber(false), subscriber(true)];
        await waitFor(() => late.every((c) => c.messages.length > 0), 'late subscribers ready', 30_000);
      }
      // wool peers (once woolrx made the segment: one of theirs would stay):
      // one joins every other round from round 2, and leaves four rounds later.
      if (round >= 2 && round % 2 === 0) {
        const joining = woolUids[(round - 2) / 2];
        if (joining !== undefined) woolAlive.set(joining, await woolPeer(joining));
        const leaving = woolUids[(round - 6) / 2];
        const leaver = leaving === undefined ? undefined : woolAlive.get(leaving);
        if (leaving !== undefined && leaver !== undefined) {
          await withdrawWoolPeer(leaver);
          woolAlive.delete(leaving);
        }
      }
      await running;
      // Pacing: the idle subscribers watching from the start must see every
      // change (checked below), which a journal of 512 records allows only
      // to subscribers less than 512 changes behind: a round is ~200 changes,
      // so none starts before they applied the one before (CI machines are loaded).
      due += perRound[round] ?? 0;
      await waitFor(
        () => early.slice(0, 2).every((child) => woolrxEvents(child) >= due),
        `idle subscribers to apply round ${round}`,
        30_000,
      );
    }
    for (const t of truths) for (const [uid, worker] of t) truth.set(uid, worker);
    const subscribers = [...early, ...late];
    const woolTruth = (state: ReadonlyMap<string, WorkerInfo>): Map<string, WorkerInfo> =>
      new Map([...state].filter(([uid]) => !woolAlive.has(uid)));
    const converged = (child: Child): boolean => {
      const { state } = checkStream(eventsOf(child), '');
      return equals(woolTruth(state), truth) && [...woolAlive.keys()].every((uid) => state.has(uid));
    };
    await waitFor(() => subscribers.every(converged), 'every subscriber to converge on the truth', 30_000);
    for (const peer of woolAlive.values()) await withdrawWoolPeer(peer);
    woolAlive.clear();
    await Promise.all(publishers.map((child) => child.call({ op: 'exit' })));
    await waitFor(
      () => subscribers.every((child) => checkStream(eventsOf(child), '').state.size === 0),
      'every worker withdrawn',
      30_000,
    );
    await Promise.all(subscribers.map((child) => child.call({ op: 'stop' })));

    // Per uid: nothing duplicated, out of order, spurious or resurrected.
    const violations: string[] = [];
    const counts = { added: 0, updated: 0, dropped: 0 };
    for (const [i, child] of subscribers.entries()) {
      const events = eventsOf(child);
      const check = checkStream(events, `subscriber ${i}`);
      violations.push(...check.violations);
      counts.added += check.counts.added;
      counts.updated += check.counts.updated;
      counts.dropped += check.counts.dropped;
      // Nothing a publisher never published (ghosts).
      for (const { worker } of events) {
        const serial = serialOf(worker);
        if (serial === undefined) {
          if (!woolUids.includes(worker.uid)) violations.push(`subscriber ${i}: ghost ${worker.uid} ${worker.version}`);
        } else if (!published.has(`${worker.uid} v${serial}`)) {
          violations.push(`subscriber ${i}: ghost ${worker.uid} v${serial}`);
        }
      }
    }
    // Nothing lost: the idle subscribers that watched from the start saw
    // every change of the woolrx publishers' workers, in order.
    for (const [i, child] of early.slice(0, 2).entries()) {
      const seen = new Map<string, Expected[]>();
      for (const { type, worker } of eventsOf(child)) {
        const serial = serialOf(worker);
        if (serial === undefined) continue;
        const list = seen.get(worker.uid) ?? [];
        list.push({ type, serial });
        seen.set(worker.uid, list);
      }
      for (const [uid, list] of expected) {
        // Withdrawn at the publishers' exit.
        const last = truth.get(uid);
        const withdrawal: Expected[] =
          last === undefined ? [] : [{ type: 'worker-dropped', serial: serialOf(last) ?? -1 }];
        const want = [...list, ...withdrawal];
        if (JSON.stringify(seen.get(uid) ?? []) !== JSON.stringify(want)) {
          violations.push(
            `idle subscriber ${i}: ${uid}: saw ${JSON.stringify(seen.get(uid))}, expected ${JSON.stringify(want)}`,
          );
        }
      }
    }
    const ops = ROUNDS * OPS_PER_ROUND * PUBLISHERS;
    console.log(
      `# churn: ${ops} operations by ${PUBLISHERS} publishers, ${WOOL_PEERS} wool peers, ${subscribers.length} subscribers ` +
        `(${counts.added} added, ${counts.updated} updated, ${counts.dropped} dropped seen); ` +
        `violations (lost/ghost/spurious/resurrected): ${violations.length}; ${Date.now() - started} ms`,
    );
    assert.deepEqual(violations.slice(0, 20), [], `${violations.length} violations`);
    const codes = await Promise.all([...subscribers, ...publishers].map((child) => child.exited));
    assert.deepEqual(
      codes,
      codes.map(() => 0),
    );
  });
});
