// Resurrection on the local backend under load. Two publisher
// processes add, re-add (same metadata) and drop a few uids repeatedly;
// four subscriber processes block their event loop 60 ms of every 100 ms,
// so they read the slot table and the journal far behind the publishers. A
// subscriber that sees a drop in the slot table before replaying an older
// journal record of that worker must never re-emit it: per uid, every add
// carries metadata newer than anything seen before.
// The subscribers poll every 50 ms (default 1 000) so that the slot table
// is read often while they are behind: more chances for the race.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import type { DiscoveryEvent, DiscoveryEventType } from '../../src/events/types.js';
import type { WorkerInfo } from '../../src/model/types.js';
import { workerInfo } from '../../src/model/workerInfo.js';
import { sameWorker } from '../../src/model/sameWorker.js';
import {
  assertClean,
  Child,
  killChildren,
  strayTestFiles,
  uniqueNamespace,
  waitFor,
} from '../backends/local/helpers.js';
import { checkStream } from './streamCheck.js';

const PUBLISHERS = 2;
const SUBSCRIBERS = 4;
const UIDS = 3; // per publisher
const OPS = 1_500; // per publisher
const BUSY = '../../../reliability/children/busySubscriber.ts';

const namespace = uniqueNamespace('resurrect');
const allUids: string[] = [];

after(async () => {
  await killChildren();
  await assertClean(namespace, allUids);
  assert.deepEqual(strayTestFiles(), [], 'nothing of these tests left in /dev/shm or the temp directory');
});

function plan(
  publisher: number,
  seed: number,
  truth: Map<string, WorkerInfo>,
): { type: DiscoveryEventType; worker: WorkerInfo }[] {
  let a = seed >>> 0;
  const random = (): number => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const uids = Array.from(
    { length: UIDS },
    (_, i) =>
      `${(publisher + 0xa1).toString(16).padStart(8, '0')}-0000-4000-8000-${(i + 1).toString(16).padStart(12, '0')}`,
  );
  allUids.push(...uids);
  const serials = new Map<string, number>();
  const ops: { type: DiscoveryEventType; worker: WorkerInfo }[] = [];
  for (let n = 0; n < OPS; n += 1) {
    const uid = uids[Math.floor(random() * UIDS)] ?? '';
    const current = truth.get(uid);
    if (current === undefined) {
      const serial = (serials.get(uid) ?? 0) + 1;
      serials.set(uid, serial);
      const worker = workerInfo({
        uid,
        address: `127.0.0.1:${30_000 + publisher}`,
        pid: process.pid,
        version: `v${serial}`,
        tags: ['gpu'],
      });
      ops.push({ type: 'worker-added', worker });
      truth.set(uid, worker);
    } else if (random() < 0.4) {
      ops.push({ type: 'worker-added', worker: current }); // re-add, same metadata: no event
    } else {
      ops.push({ type: 'worker-dropped', worker: current });
      truth.delete(uid);
    }
  }
  return ops;
}

const eventsOf = (child: Child): DiscoveryEvent[] =>
  child.messages.flatMap((m) =>
    (m as { event?: DiscoveryEvent }).event ? [(m as { event: DiscoveryEvent }).event] : [],
  );

describe('local backend: no resurrection under load', () => {
  it(`${PUBLISHERS} publishers re-adding and dropping ${UIDS} uids each, ${SUBSCRIBERS} subscribers busy 60 ms of every 100 ms`, async () => {
    const subscribers = Array.from(
      { length: SUBSCRIBERS },
      () => new Child(BUSY, [namespace, JSON.stringify({ capacity: 64, pollInterval: 50 }), '60', '100']),
    );
    const publishers = Array.from(
      { length: PUBLISHERS },
      () => new Child('publisher.ts', [namespace, JSON.stringify({ capacity: 64 })]),
    );
    await waitFor(() => [...subscribers, ...publishers].every((c) => c.messages.length > 0), 'children ready', 30_000);
    const truths = publishers.map(() => new Map<string, WorkerInfo>());
    const plans = publishers.map((_, i) => plan(i, 0x5eed + i, truths[i] ?? new Map<string, WorkerInfo>()));
    const truth = new Map(truths.flatMap((t) => [...t]));

    await Promise.all(publishers.map((child, i) => child.call({ op: 'run', workers: plans[i] })));

    const converged = (child: Child): boolean => {
      const { state } = checkStream(eventsOf(child), 'subscriber');
      return (
        state.size === truth.size &&
        [...truth].every(([uid, w]) => state.has(uid) && sameWorker(state.get(uid) as WorkerInfo, w))
      );
    };
    await waitFor(() => subscribers.every(converged), 'every subscriber to converge on the truth', 20_000);
    await Promise.all(publishers.map((child) => child.call({ op: 'exit' })));
    await waitFor(
      () => subscribers.every((child) => checkStream(eventsOf(child), '').state.size === 0),
      'every worker withdrawn',
      20_000,
    );
    await Promise.all(subscribers.map((child) => child.call({ op: 'stop' })));

    const violations = subscribers.flatMap((child, i) => checkStream(eventsOf(child), `subscriber ${i}`).violations);
    assert.deepEqual(violations.slice(0, 20), [], `${violations.length} violations`);
    const codes = await Promise.all([...subscribers, ...publishers].map((child) => child.exited));
    assert.deepEqual(
      codes,
      codes.map(() => 0),
    );
  });
});
