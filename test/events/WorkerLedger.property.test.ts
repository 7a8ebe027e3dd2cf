// Property: WorkerLedger.reconcile (which walks the old state in step with
// the new snapshot and looks uids up only when the orders diverge) decides
// exactly what a naive reference decides, on random snapshot sequences: kept
// orders with drops and insertions, reordered keys, the same worker objects
// again, fresh equal objects, changed ones, the same Map again, and bad keys.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { WorkerLedger } from '../../src/events/WorkerLedger.js';
import type { DiscoveryEvent, WorkerSnapshot } from '../../src/events/types.js';
import { describeValue } from '../../src/model/describeValue.js';
import { sameWorker } from '../../src/model/sameWorker.js';
import type { WorkerInfo } from '../../src/model/types.js';
import { testWorker } from '../../src/testing/testWorker.js';

const POOL = 8;
const NUMBERS = Array.from({ length: POOL }, (_, i) => i + 1);

/** Two pooled versions per worker, shared across snapshots (so identity hits are common). */
const pooled = NUMBERS.map((n) => [testWorker(n, { tags: ['a', 'b'] }), testWorker(n, { version: '2', tags: ['b'] })]);

type Variant = 'same' | 'fresh' | 'v1' | 'v2';
type Bad = 'none' | 'other-worker' | 'null' | 'string';

interface Step {
  /** Which workers, in the order used when not keeping the old order. */
  readonly numbers: readonly number[];
  readonly keepOrder: boolean;
  readonly variants: readonly Variant[];
  readonly sameMap: boolean;
  readonly bad: Bad;
  readonly badAt: number;
}

const stepArb: fc.Arbitrary<Step> = fc.record({
  numbers: fc.shuffledSubarray(NUMBERS),
  keepOrder: fc.boolean(),
  variants: fc.array(fc.constantFrom<Variant>('same', 'same', 'same', 'fresh', 'v1', 'v2'), {
    minLength: POOL,
    maxLength: POOL,
  }),
  sameMap: fc.constantFrom(false, false, false, true),
  bad: fc.constantFrom<Bad>('none', 'none', 'none', 'none', 'none', 'none', 'other-worker', 'null', 'string'),
  badAt: fc.nat(),
});

function pick<T>(items: readonly T[], i: number): T {
  const item = items[i];
  if (item === undefined) throw new Error(`no item ${i}`);
  return item;
}

/** Builds the next snapshot from the previous one (the reference's state). */
function build(prev: WorkerSnapshot, step: Step): WorkerSnapshot {
  if (step.sameMap) return prev;
  const uidOf = (n: number): string => pick(pick(pooled, n - 1), 0).uid;
  let order: number[];
  if (step.keepOrder) {
    // The old order, minus the workers left out, plus new ones inserted at
    // positions taken from the step (so the walk must get back in step).
    const wanted = new Set(step.numbers);
    order = NUMBERS.filter((n) => prev.has(uidOf(n)) && wanted.has(n));
    const rank = new Map([...prev.keys()].map((uid, i) => [uid, i]));
    order.sort((a, b) => (rank.get(uidOf(a)) ?? 0) - (rank.get(uidOf(b)) ?? 0));
    step.numbers.forEach((n, i) => {
      if (!prev.has(uidOf(n))) order.splice(i % (order.length + 1), 0, n);
    });
  } else {
    order = [...step.numbers];
  }
  const next = new Map<string, WorkerInfo>();
  for (const n of order) {
    const [v1, v2] = pick(pooled, n - 1);
    if (v1 === undefined || v2 === undefined) throw new Error('pool');
    const before = prev.get(v1.uid);
    const variant = pick(step.variants, n - 1);
    let worker: WorkerInfo;
    if (variant === 'same') worker = before ?? v1;
    else if (variant === 'fresh') {
      // A new object equal to the old one (tags in another order).
      const base = before ?? v1;
      worker = testWorker(n, { ...base, tags: [...base.tags].reverse() });
    } else worker = variant === 'v1' ? v1 : v2;
    next.set(worker.uid, worker);
  }
  if (step.bad !== 'none' && order.length > 0) {
    const n = pick(order, step.badAt % order.length);
    const uid = uidOf(n);
    const other = pick(pick(pooled, n % POOL), 0);
    const value = step.bad === 'other-worker' ? other : step.bad === 'null' ? null : 'not a worker';
    next.set(uid, value as unknown as WorkerInfo);
  }
  return next;
}

/** The naive reference: validate all, then the drops, then each new uid looked up. */
function reference(prev: WorkerSnapshot, next: WorkerSnapshot): DiscoveryEvent[] {
  for (const [uid, worker] of next) {
    if (worker === null || typeof worker !== 'object' || worker.uid !== uid) {
      const actual = worker !== null && typeof worker === 'object' ? describeValue(worker.uid) : describeValue(worker);
      throw new TypeError(`snapshot key ${describeValue(uid)} does not match its worker's uid ${actual}`);
    }
  }
  const events: DiscoveryEvent[] = [];
  for (const [uid, worker] of prev) if (!next.has(uid)) events.push({ type: 'worker-dropped', worker });
  for (const [uid, worker] of next) {
    const before = prev.get(uid);
    if (before === undefined) events.push({ type: 'worker-added', worker });
    else if (!sameWorker(before, worker)) events.push({ type: 'worker-updated', worker });
  }
  return events;
}

function outcome(run: () => DiscoveryEvent[]): DiscoveryEvent[] | TypeError {
  try {
    return run();
  } catch (error) {
    if (error instanceof TypeError) return error;
    throw error;
  }
}

function assertSameOutcome(
  actual: DiscoveryEvent[] | TypeError,
  expected: DiscoveryEvent[] | TypeError,
  at: number,
): void {
  if (expected instanceof TypeError) {
    assert.ok(actual instanceof TypeError, `snapshot ${at}: expected a TypeError`);
    assert.equal(actual.message, expected.message, `snapshot ${at}: message`);
    return;
  }
  if (actual instanceof TypeError) assert.fail(`snapshot ${at}: unexpected TypeError: ${actual.message}`);
  assert.equal(actual.length, expected.length, `snapshot ${at}: number of events`);
  expected.forEach((want, i) => {
    const got = actual[i];
    assert.equal(got?.type, want.type, `snapshot ${at}, event ${i}: type`);
    assert.equal(got.worker, want.worker, `snapshot ${at}, event ${i}: the very worker object`);
  });
}

/** Runs a sequence through a ledger and the reference side by side. */
function check(steps: readonly Step[]): void {
  const ledger = new WorkerLedger();
  let state: WorkerSnapshot = ledger.snapshot();
  steps.forEach((step, at) => {
    const next = build(state, step);
    const expected = outcome(() => reference(state, next));
    const actual = outcome(() => ledger.reconcile(next));
    assertSameOutcome(actual, expected, at);
    if (!(expected instanceof TypeError)) state = next;
    // Adopted on success, unchanged on a bad snapshot.
    assert.equal(ledger.snapshot(), state, `snapshot ${at}: the ledger's state`);
  });
}

describe('WorkerLedger.reconcile agrees with a naive reference (fast-check)', () => {
  it('on random snapshot sequences (kept and changed orders, same, fresh and changed objects, bad keys)', () => {
    fc.assert(
      fc.property(fc.array(stepArb, { minLength: 1, maxLength: 30 }), (steps) => check(steps)),
      { numRuns: 500 },
    );
  });

  it('on long snapshots kept in order with a few drops and insertions', () => {
    // Beyond the property's small pool: drops and insertions far apart, so
    // the walk falls out of step and back in several times per snapshot.
    const ledger = new WorkerLedger();
    const workers = Array.from({ length: 200 }, (_, i) => testWorker(i + 1));
    let state: WorkerSnapshot = new Map(workers.map((w) => [w.uid, w]));
    ledger.reconcile(state);
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.nat({ max: 199 }), { maxLength: 12 }),
        fc.uniqueArray(fc.nat({ max: 199 }), { maxLength: 6 }),
        (drops, changes) => {
          const dropped = new Set(drops);
          const next = new Map<string, WorkerInfo>();
          workers.forEach((w, i) => {
            if (dropped.has(i)) return;
            const before = state.get(w.uid) ?? w;
            next.set(w.uid, changes.includes(i) ? testWorker(i + 1, { version: `${before.version}.1` }) : before);
          });
          const expected = outcome(() => reference(state, next));
          assertSameOutcome(
            outcome(() => ledger.reconcile(next)),
            expected,
            0,
          );
          state = next;
        },
      ),
      { numRuns: 200 },
    );
  });

  it('detects a reconcile that disagrees (the comparison can fail)', () => {
    const w = testWorker(1);
    const moved = testWorker(1, { address: '127.0.0.1:1' });
    const expected = reference(new Map([[w.uid, w]]), new Map([[moved.uid, moved]]));
    assert.throws(() => assertSameOutcome([], expected, 0), assert.AssertionError);
    const equalButNotTheSame: DiscoveryEvent = {
      type: 'worker-updated',
      worker: testWorker(1, { address: '127.0.0.1:1' }),
    };
    assert.throws(() => assertSameOutcome([equalButNotTheSame], expected, 0), assert.AssertionError);
  });
});
