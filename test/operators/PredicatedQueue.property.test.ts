// Property test: random interleavings of puts, takers, unsubscriptions and
// removals never break the queue's guarantees.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { Subscription } from 'rxjs';
import { PredicatedQueue } from '../../src/operators/PredicatedQueue.js';

type Tag = 'a' | 'b' | 'c';
interface Item {
  readonly id: number;
  readonly tag: Tag;
}
type Op =
  | { readonly kind: 'put'; readonly tag: Tag }
  | { readonly kind: 'take'; readonly tags: readonly Tag[]; readonly count: number }
  | { readonly kind: 'leave'; readonly index: number }
  | { readonly kind: 'remove'; readonly tag: Tag };

const tag = fc.constantFrom<Tag>('a', 'b', 'c');
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('put' as const), tag }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('take' as const),
      tags: fc.uniqueArray(tag, { minLength: 1, maxLength: 3 }),
      count: fc.integer({ min: 1, max: 3 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('leave' as const), index: fc.nat(20) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('remove' as const), tag }) },
);

interface TakerModel {
  readonly tags: readonly Tag[];
  readonly count: number;
  readonly got: number[];
  open: boolean;
  subscription?: Subscription;
}

describe('PredicatedQueue (property)', () => {
  it('is exclusive, loses nothing, serves in subscription order and respects the bound', () => {
    fc.assert(
      fc.property(
        fc.array(op, { maxLength: 60 }),
        fc.option(fc.integer({ min: 1, max: 4 }), { nil: undefined }),
        (ops, maxSize) => {
          const queue = new PredicatedQueue<Item>(maxSize === undefined ? {} : { maxSize });
          const takers: TakerModel[] = [];
          const accepted = new Set<number>();
          const removed = new Set<number>();
          const delivered = new Map<number, TakerModel>();
          let nextId = 1;

          for (const step of ops) {
            if (step.kind === 'put') {
              const item = { id: nextId++, tag: step.tag };
              if (queue.tryPut(item)) accepted.add(item.id);
            } else if (step.kind === 'take') {
              const taker: TakerModel = { tags: step.tags, count: step.count, got: [], open: true };
              takers.push(taker);
              taker.subscription = queue
                .take((item) => taker.tags.includes(item.tag), taker.count)
                .subscribe({
                  next: (item) => {
                    assert.equal(delivered.has(item.id), false, `item ${item.id} delivered twice`);
                    assert.ok(taker.tags.includes(item.tag), 'delivered an item the predicate rejects');
                    // Subscription order: no earlier taker still waiting wanted this item.
                    for (const earlier of takers) {
                      if (earlier === taker) break;
                      const waiting = earlier.open && earlier.got.length < earlier.count;
                      assert.ok(
                        !(waiting && earlier.tags.includes(item.tag)),
                        `item ${item.id} skipped an earlier taker`,
                      );
                    }
                    delivered.set(item.id, taker);
                    taker.got.push(item.id);
                  },
                  complete: () => {
                    taker.open = false;
                  },
                });
            } else if (step.kind === 'leave') {
              const taker = takers[step.index % Math.max(takers.length, 1)];
              if (taker !== undefined) {
                taker.subscription?.unsubscribe();
                taker.open = false;
              }
            } else {
              for (const item of queue.items) if (item.tag === step.tag) removed.add(item.id);
              queue.remove((item) => item.tag === step.tag);
            }

            // Conservation: every accepted item is delivered once, removed, or still queued.
            const queued = queue.items.map((item) => item.id);
            const accounted = [...delivered.keys(), ...removed, ...queued].sort((x, y) => x - y);
            assert.deepEqual(
              accounted,
              [...accepted].sort((x, y) => x - y),
            );
            assert.ok(queue.size <= (maxSize ?? Infinity), 'bound exceeded');
            // Nothing deliverable is left waiting.
            for (const item of queue.items) {
              for (const taker of takers) {
                const waiting = taker.open && taker.got.length < taker.count;
                assert.ok(!(waiting && taker.tags.includes(item.tag)), `item ${item.id} left while a taker wants it`);
              }
            }
            // Each taker receives items oldest first, at most its count.
            for (const taker of takers) {
              assert.ok(taker.got.length <= taker.count);
              assert.deepEqual(
                taker.got,
                [...taker.got].sort((x, y) => x - y),
              );
            }
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
