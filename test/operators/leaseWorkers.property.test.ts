// Property test: random interleavings of worker events (adds, updates,
// re-announcements, drops) and callers (joining the line, leaving it,
// releasing their lease) never break leaseWorkers' guarantees.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { Subject, type Subscription } from 'rxjs';
import type { LeaseLostError } from '../../src/errors/LeaseLostError.js';
import { QueueClosedError } from '../../src/errors/QueueClosedError.js';
import type { DiscoveryItem } from '../../src/events/types.js';
import { sameWorker } from '../../src/model/sameWorker.js';
import type { WorkerInfo } from '../../src/model/types.js';
import { leaseWorkers, type WorkerLease } from '../../src/operators/leaseWorkers.js';
import { added, dropped, updated, testWorker } from '../../src/testing/index.js';

type Tag = 'a' | 'b' | 'c';
type Op =
  | { readonly kind: 'announce'; readonly n: number; readonly tag: Tag; readonly version: number }
  | { readonly kind: 'drop'; readonly n: number }
  | { readonly kind: 'acquire'; readonly tags: readonly Tag[] }
  | { readonly kind: 'leave' | 'release'; readonly index: number };

const tag = fc.constantFrom<Tag>('a', 'b', 'c');
const n = fc.integer({ min: 1, max: 4 });
const op: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({ kind: fc.constant('announce' as const), n, tag, version: fc.integer({ min: 1, max: 2 }) }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('drop' as const), n }) },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('acquire' as const),
      tags: fc.uniqueArray(tag, { minLength: 1, maxLength: 3 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('leave' as const), index: fc.nat(30) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('release' as const), index: fc.nat(30) }) },
);

interface Caller {
  readonly tags: readonly Tag[];
  /** `dropped`: its worker was dropped; it may still (uselessly) call release(). */
  state: 'waiting' | 'holding' | 'dropped' | 'done';
  lease?: WorkerLease;
  subscription?: Subscription;
}

const same = (a: WorkerInfo | undefined, b: WorkerInfo): boolean => a !== undefined && sameWorker(a, b);
const accepts = (caller: Caller, worker: WorkerInfo): boolean => caller.tags.some((t) => worker.tags.includes(t));

describe('leaseWorkers (property)', () => {
  it('never two holders of one worker, callers served in line, no dropped worker handed out, lost fired when due', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 80 }), (ops) => {
        const source = new Subject<DiscoveryItem>();
        const pool = leaseWorkers(source);
        const live = new Map<string, WorkerInfo>();
        const callers: Caller[] = [];
        const holding = (): Caller[] => callers.filter((caller) => caller.state === 'holding');
        const waiting = (): Caller[] => callers.filter((caller) => caller.state === 'waiting');

        for (const step of ops) {
          if (step.kind === 'announce') {
            const worker = testWorker(step.n, { tags: [step.tag], version: String(step.version) });
            const known = live.has(worker.uid);
            live.set(worker.uid, worker);
            source.next(known ? updated(worker) : added(worker));
            const holder = holding().find((caller) => caller.lease?.worker.uid === worker.uid);
            if (holder !== undefined && !accepts(holder, worker)) {
              assert.equal(holder.lease?.lost.aborted, true, 'lost fires when an update fails the predicate');
              assert.equal((holder.lease?.lost.reason as LeaseLostError).reason, 'updated');
            }
          } else if (step.kind === 'drop') {
            const worker = live.get(testWorker(step.n).uid);
            if (worker === undefined) continue;
            live.delete(worker.uid);
            source.next(dropped(worker));
            for (const holder of holding().filter((caller) => caller.lease?.worker.uid === worker.uid)) {
              // Lost now, or already when an update failed its predicate.
              assert.equal(holder.lease?.lost.aborted, true, 'lost fires when the worker is dropped');
              assert.ok(['dropped', 'updated'].includes((holder.lease?.lost.reason as LeaseLostError).reason));
              holder.state = 'dropped';
            }
          } else if (step.kind === 'acquire') {
            const caller: Caller = { tags: step.tags, state: 'waiting' };
            callers.push(caller);
            caller.subscription = pool
              .lease((worker) => accepts(caller, worker))
              .subscribe({
                error: (error: unknown) => {
                  // Only close() at the end refuses a caller still in line.
                  assert.ok(error instanceof QueueClosedError && pool.closed);
                  caller.state = 'done';
                },
                next: (lease) => {
                  const { worker } = lease;
                  assert.equal(caller.state, 'waiting');
                  assert.ok(same(live.get(worker.uid), worker), 'handed out: a live worker, with its latest metadata');
                  assert.ok(accepts(caller, worker), 'handed out a worker the predicate rejects');
                  assert.ok(
                    !holding().some((other) => other.lease?.worker.uid === worker.uid),
                    `${worker.uid} has two holders`,
                  );
                  for (const earlier of callers) {
                    if (earlier === caller) break;
                    assert.ok(
                      !(earlier.state === 'waiting' && accepts(earlier, worker)),
                      'an earlier caller in line wanted it',
                    );
                  }
                  caller.lease = lease;
                  caller.state = 'holding';
                },
              });
          } else if (step.kind === 'leave') {
            const caller = waiting()[step.index % Math.max(waiting().length, 1)];
            if (caller === undefined) continue;
            caller.subscription?.unsubscribe();
            caller.state = 'done';
          } else {
            // Any lease may be released, also one whose worker was dropped.
            const leased = callers.filter((other) => other.state === 'holding' || other.state === 'dropped');
            const caller = leased[step.index % Math.max(leased.length, 1)];
            if (caller === undefined) continue;
            caller.state = 'done';
            caller.lease?.release();
          }

          // One holder per worker; every live worker is held or available, with its latest metadata.
          const held = holding().map((caller) => caller.lease?.worker.uid ?? '');
          assert.equal(new Set(held).size, held.length, 'two holders of one worker');
          const available = pool.available;
          for (const worker of available) {
            assert.ok(same(live.get(worker.uid), worker), 'available: a live worker with its latest metadata');
            assert.ok(!held.includes(worker.uid), 'available while held');
          }
          assert.deepEqual(
            [...available.map((worker) => worker.uid), ...held].sort(),
            [...live.keys()].sort(),
            'every live worker is held or available, and nothing else',
          );
          // Nobody waits for a worker that is available to them.
          for (const caller of waiting()) {
            assert.ok(
              !available.some((worker) => accepts(caller, worker)),
              'a caller waits while a worker it accepts is available',
            );
          }
        }
        pool.close();
        assert.equal(source.observed, false);
        for (const caller of holding()) assert.equal(caller.lease?.lost.aborted, true, 'close() loses every lease');
      }),
      { numRuns: 300 },
    );
  });
});
