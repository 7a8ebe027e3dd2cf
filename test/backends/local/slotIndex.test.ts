// SlotIndex: a writer's index of the slot table answers exactly what
// findSlot finds by searching it — the first slot of each uid (duplicates
// included), the first free slot — through random changes made by the
// writer itself (set) and by others (a table read afresh, then synced),
// and across a resize.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { findSlot, FREE_SLOT, SLOT_SIZE } from '../../../src/backends/local/segment/slotTable.js';
import { SlotIndex } from '../../../src/backends/local/segment/SlotIndex.js';
import { prng } from '../../reliability/prng.js';

function uid(n: number): Buffer {
  const bytes = Buffer.alloc(SLOT_SIZE);
  bytes.writeUInt32LE(n + 1, 3);
  return bytes;
}

function check(
  index: SlotIndex,
  table: Buffer,
  length: number,
  uids: readonly Buffer[],
  seed: number,
  step: number,
): void {
  assert.equal(index.firstFree(), findSlot(table, length, FREE_SLOT), `first free (seed ${seed}, step ${step})`);
  for (const bytes of uids)
    assert.equal(index.find(bytes), findSlot(table, length, bytes), `uid slot (seed ${seed}, step ${step})`);
}

describe('SlotIndex', () => {
  it('agrees with findSlot through random writes of its own and of others', () => {
    for (let seed = 1; seed <= 20; seed += 1) {
      const random = prng(seed);
      let capacity = 1 + Math.floor(random() * 200);
      let table = Buffer.alloc(capacity * SLOT_SIZE);
      // Few uids, so that duplicates (garbage, races) are common.
      const uids = Array.from({ length: 12 }, (_, n) => uid(n));
      const index = new SlotIndex();
      index.sync(table, table.length);
      check(index, table, table.length, uids, seed, -1);
      for (let step = 0; step < 300; step += 1) {
        const roll = random();
        if (roll < 0.02) {
          // A resized table (another segment): rebuilt.
          capacity = 1 + Math.floor(random() * 200);
          const next = Buffer.alloc(capacity * SLOT_SIZE);
          table.copy(next, 0, 0, Math.min(table.length, next.length));
          table = next;
          index.sync(table, table.length);
        } else if (roll < 0.5) {
          // The writer's own change.
          const slot = Math.floor(random() * capacity);
          const bytes = random() < 0.4 ? FREE_SLOT : (uids[Math.floor(random() * uids.length)] ?? FREE_SLOT);
          bytes.copy(table, slot * SLOT_SIZE);
          index.set(slot, bytes);
        } else {
          // Others' changes, seen in a table read afresh.
          const changes = Math.floor(random() * 5);
          for (let i = 0; i < changes; i += 1) {
            const slot = Math.floor(random() * capacity);
            const bytes = random() < 0.4 ? FREE_SLOT : (uids[Math.floor(random() * uids.length)] ?? FREE_SLOT);
            bytes.copy(table, slot * SLOT_SIZE);
          }
          index.sync(table, table.length);
        }
        check(index, table, table.length, uids, seed, step);
      }
    }
  });

  it('rebuilds after reset', () => {
    const table = Buffer.alloc(8 * SLOT_SIZE);
    uid(1).copy(table, 0);
    const index = new SlotIndex();
    index.sync(table, table.length);
    assert.equal(index.find(uid(1)), 0);
    // A new segment of the same size: what the index knew is no guide.
    const other = Buffer.alloc(8 * SLOT_SIZE);
    uid(2).copy(other, 3 * SLOT_SIZE);
    index.reset();
    index.sync(other, other.length);
    assert.equal(index.find(uid(1)), -1);
    assert.equal(index.find(uid(2)), 3);
    assert.equal(index.firstFree(), 0);
  });
});
