// Four publisher processes and four subscriber processes churning 2,000
// add/update/drop operations: every subscriber must converge to the exact
// final set, with a consistent stream and no spurious update.
import { prng } from '../../reliability/prng.js';
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import type { DiscoveryEvent, DiscoveryEventType } from '../../../src/events/types.js';
import { sameWorker } from '../../../src/model/sameWorker.js';
import type { WorkerInfo } from '../../../src/model/types.js';
import { workerInfo } from '../../../src/model/workerInfo.js';
import { assertClean, Child, killChildren, uniqueNamespace, waitFor, strayTestFiles } from './helpers.js';

const PUBLISHERS = 4;
const SUBSCRIBERS = 4;
const OPS = 2_000;
const POOL = 25; // uids per publisher

const namespace = uniqueNamespace('churn');
const allUids: string[] = [];

after(async () => {
  await killChildren();
  await assertClean(namespace, allUids);
  assert.deepEqual(strayTestFiles(), [], 'nothing of these tests left in /dev/shm or the temp directory');
});

function plan(publisher: number, random: () => number, final: Map<string, WorkerInfo>) {
  const uids = Array.from(
    { length: POOL },
    (_, i) =>
      `${(publisher + 1).toString(16).padStart(8, '0')}-0000-4000-8000-${(i + 1).toString(16).padStart(12, '0')}`,
  );
  allUids.push(...uids);
  const ops: { type: DiscoveryEventType; worker: WorkerInfo }[] = [];
  let serial = 0;
  const make = (uid: string) =>
    workerInfo({
      uid,
      address: `127.0.0.1:${20_000 + (serial % 10_000)}`,
      pid: process.pid,
      version: `v${serial++}`,
      tags: random() < 0.5 ? ['gpu'] : [],
      extra: { publisher: String(publisher) },
    });
  for (let n = 0; n < OPS / PUBLISHERS; n += 1) {
    const uid = uids[Math.floor(random() * POOL)] ?? '';
    const current = final.get(uid);
    const roll = random();
    if (current === undefined) {
      const worker = make(uid);
      ops.push({ type: 'worker-added', worker });
      final.set(uid, worker);
    } else if (roll < 0.35) {
      const worker = make(uid);
      ops.push({ type: 'worker-updated', worker });
      final.set(uid, worker);
    } else if (roll < 0.5) {
      ops.push({ type: 'worker-added', worker: current }); // identical refresh: no event
    } else if (roll < 0.65) {
      const worker = make(uid);
      ops.push({ type: 'worker-added', worker }); // refresh with new metadata
      final.set(uid, worker);
    } else {
      ops.push({ type: 'worker-dropped', worker: current });
      final.delete(uid);
    }
  }
  return ops;
}

/** Replays one subscriber's events, asserting they are consistent; returns the resulting set. */
function replay(events: readonly DiscoveryEvent[], label: string): Map<string, WorkerInfo> {
  const known = new Map<string, WorkerInfo>();
  for (const [i, event] of events.entries()) {
    const uid = event.worker.uid;
    const previous = known.get(uid);
    if (event.type === 'worker-added') {
      assert.equal(previous, undefined, `${label} event ${i}: added ${uid} twice`);
      known.set(uid, event.worker);
    } else if (event.type === 'worker-updated') {
      assert.ok(previous, `${label} event ${i}: updated unknown ${uid}`);
      assert.ok(!sameWorker(previous, event.worker), `${label} event ${i}: spurious update of ${uid}`);
      known.set(uid, event.worker);
    } else {
      assert.ok(previous, `${label} event ${i}: dropped unknown ${uid}`);
      known.delete(uid);
    }
  }
  return known;
}

describe('local backend under churn', () => {
  it(`${PUBLISHERS} publishers × ${SUBSCRIBERS} subscribers, ${OPS} operations: exact convergence, no spurious updates`, async () => {
    const subscribers = Array.from(
      { length: SUBSCRIBERS },
      () => new Child('subscriber.ts', [namespace, JSON.stringify({ capacity: 256 })]),
    );
    const publishers = Array.from(
      { length: PUBLISHERS },
      () => new Child('publisher.ts', [namespace, JSON.stringify({ capacity: 256, pollInterval: false })]),
    );
    await waitFor(() => [...subscribers, ...publishers].every((c) => c.messages.length > 0), 'children ready', 30_000);
    const events = (child: Child) =>
      child.messages.flatMap((m) =>
        (m as { event?: DiscoveryEvent }).event ? [(m as { event: DiscoveryEvent }).event] : [],
      );

    const random = prng(0xc0ffee);
    const finals = publishers.map(() => new Map<string, WorkerInfo>());
    const plans = publishers.map((_, i) => plan(i, random, finals[i] ?? new Map<string, WorkerInfo>()));
    const expected = new Map<string, WorkerInfo>();
    for (const final of finals) for (const [uid, worker] of final) expected.set(uid, worker);

    await Promise.all(publishers.map((child, i) => child.call({ op: 'run', workers: plans[i] })));

    for (const [i, subscriber] of subscribers.entries()) {
      await waitFor(
        () => {
          const got = replay(events(subscriber), `subscriber ${i}`);
          return (
            got.size === expected.size &&
            [...expected].every(([uid, w]) => got.has(uid) && sameWorker(got.get(uid) as WorkerInfo, w))
          );
        },
        `subscriber ${i} to converge on ${expected.size} workers`,
        20_000,
      );
      const got = replay(events(subscriber), `subscriber ${i}`);
      assert.deepEqual(new Map([...got].sort()), new Map([...expected].sort()));
    }

    // Withdrawal: closing every publisher empties every subscriber.
    await Promise.all(publishers.map((child) => child.call({ op: 'exit' })));
    for (const [i, subscriber] of subscribers.entries()) {
      await waitFor(
        () => replay(events(subscriber), `subscriber ${i}`).size === 0,
        `subscriber ${i} to see every worker withdrawn`,
      );
    }
    await Promise.all(subscribers.map((child) => child.call({ op: 'stop' })));
    const codes = await Promise.all([...subscribers, ...publishers].map((child) => child.exited));
    assert.deepEqual(
      codes,
      codes.map(() => 0),
    );
  });
});
