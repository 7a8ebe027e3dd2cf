// Property: toSnapshots inverts diffSnapshots. For any sequence S of
// snapshots, emitted one per tick, S.pipe(diffSnapshots(), toSnapshots())
// emits S with consecutive duplicates removed, an implicit empty snapshot
// preceding S (so leading empty snapshots emit nothing).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { asapScheduler, concatMap, delay, from, lastValueFrom, of, toArray } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import type { WorkerSnapshot } from '../../src/events/types.js';
import { sameWorker } from '../../src/model/sameWorker.js';
import type { WorkerInfo } from '../../src/model/types.js';
import { workerInfo } from '../../src/model/workerInfo.js';
import { diffSnapshots } from '../../src/operators/diffSnapshots.js';
import { toSnapshots } from '../../src/operators/toSnapshots.js';

const UIDS = [1, 2, 3, 4, 5].map((n) => `00000000-0000-4000-8000-${n.toString().padStart(12, '0')}`);

/** Metadata drawn from small pools, so that equal consecutive workers are common. */
const workerArb = (uid: string): fc.Arbitrary<WorkerInfo> =>
  fc
    .record({
      port: fc.constantFrom(50051, 50052),
      version: fc.constantFrom('1.0.0', '1.1.0'),
      tags: fc.subarray(['gpu', 'cpu', 'arm']).chain((tags) => fc.shuffledSubarray(tags, { minLength: tags.length })),
      zone: fc.option(fc.constantFrom('eu', 'us'), { nil: undefined }),
      secure: fc.boolean(),
      compression: fc.constantFrom('none' as const, 'gzip' as const),
    })
    .map(({ port, version, tags, zone, secure, compression }) =>
      workerInfo({
        uid,
        address: `127.0.0.1:${port}`,
        pid: 100,
        version,
        tags,
        extra: zone === undefined ? {} : { zone },
        secure,
        options: { compression },
      }),
    );

/** A snapshot: a random subset of the uid pool, in random order, with random metadata. */
const snapshotArb: fc.Arbitrary<WorkerSnapshot> = fc
  .shuffledSubarray(UIDS)
  .chain((uids) => fc.tuple(...uids.map(workerArb)))
  .map((workers) => new Map(workers.map((worker) => [worker.uid, worker])));

/** Sequences with frequent exact repeats (same Map, or same workers in a new Map). */
const sequenceArb: fc.Arbitrary<WorkerSnapshot[]> = fc
  .array(fc.tuple(snapshotArb, fc.constantFrom('fresh', 'fresh', 'same', 'copy')), { maxLength: 25 })
  .map((steps) => {
    const out: WorkerSnapshot[] = [];
    for (const [snapshot, mode] of steps) {
      const prev = out.at(-1);
      if (prev !== undefined && mode === 'same') out.push(prev);
      else if (prev !== undefined && mode === 'copy') out.push(new Map(prev));
      else out.push(snapshot);
    }
    return out;
  });

function sameSnapshot(a: WorkerSnapshot, b: WorkerSnapshot): boolean {
  if (a.size !== b.size) return false;
  for (const [uid, worker] of a) {
    const other = b.get(uid);
    if (other === undefined || !sameWorker(worker, other)) return false;
  }
  return true;
}

/** S with an implicit empty set in front, consecutive duplicates removed, the empty set dropped again. */
function expectedFrom(sequence: readonly WorkerSnapshot[]): WorkerSnapshot[] {
  const out: WorkerSnapshot[] = [];
  let prev: WorkerSnapshot = new Map();
  for (const snapshot of sequence) {
    if (!sameSnapshot(prev, snapshot)) out.push(snapshot);
    prev = snapshot;
  }
  return out;
}

function assertSameSequence(actual: readonly WorkerSnapshot[], expected: readonly WorkerSnapshot[]): void {
  assert.equal(actual.length, expected.length, 'number of snapshots');
  actual.forEach((snapshot, i) => {
    const want = expected[i];
    assert.ok(want !== undefined && sameSnapshot(snapshot, want), `snapshot ${i} differs`);
  });
  // Every emitted map is fresh.
  assert.equal(new Set(actual).size, actual.length, 'an emitted Map was emitted twice');
}

describe('diffSnapshots + toSnapshots round trip (fast-check)', () => {
  it('reproduces S with consecutive duplicates removed (virtual time, one snapshot per frame)', () => {
    fc.assert(
      fc.property(sequenceArb, (sequence) => {
        const actual: WorkerSnapshot[] = [];
        new TestScheduler((a, e) => assert.deepStrictEqual(a, e)).run(({ cold, flush }) => {
          const values: Record<string, WorkerSnapshot> = {};
          let marbles = '';
          sequence.forEach((snapshot, i) => {
            const key = String.fromCharCode(0x61 + i); // a..y
            values[key] = snapshot;
            marbles += `-${key}`;
          });
          cold(`${marbles}|`, values)
            .pipe(diffSnapshots(), toSnapshots())
            .subscribe((snapshot) => actual.push(snapshot));
          flush();
        });
        assertSameSequence(actual, expectedFrom(sequence));
      }),
      { numRuns: 300 },
    );
  });

  it('reproduces S with consecutive duplicates removed (real asapScheduler, one snapshot per microtask)', async () => {
    await fc.assert(
      fc.asyncProperty(sequenceArb, async (sequence) => {
        const actual = await lastValueFrom(
          from(sequence).pipe(
            concatMap((snapshot) => of(snapshot).pipe(delay(0, asapScheduler))),
            diffSnapshots(),
            toSnapshots(),
            toArray(),
          ),
        );
        assertSameSequence(actual, expectedFrom(sequence));
      }),
      { numRuns: 100 },
    );
  });

  it('detects a broken inverse (the property can fail)', () => {
    // Merging two ticks into one batch loses the intermediate snapshot, and
    // the comparison must notice.
    const a = workerInfo({ uid: UIDS[0] ?? '', address: 'h:1', pid: 1, version: '1' });
    const first: WorkerSnapshot = new Map([[a.uid, a]]);
    const second: WorkerSnapshot = new Map();
    const sequence = [first, second];
    const actual: WorkerSnapshot[] = [];
    new TestScheduler((x, y) => assert.deepStrictEqual(x, y)).run(({ cold, flush }) => {
      cold('(ab)|', { a: first, b: second })
        .pipe(diffSnapshots(), toSnapshots())
        .subscribe((snapshot) => actual.push(snapshot));
      flush();
    });
    assert.throws(() => assertSameSequence(actual, expectedFrom(sequence)), assert.AssertionError);
  });
});
