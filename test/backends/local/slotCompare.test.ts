// sameSlot and slotIsFree: the 16-byte comparisons of the slot table's hot
// paths (the writer's index, the subscriber's mirror), checked against
// Buffer.compare for a difference at every byte position, at any offset.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FREE_SLOT, sameSlot, SLOT_SIZE, slotIsFree } from '../../../src/backends/local/segment/slotTable.js';

describe('sameSlot', () => {
  it('agrees with Buffer.compare for a difference at every position, at any offsets', () => {
    const a = Buffer.alloc(64);
    const b = Buffer.alloc(64);
    for (let i = 0; i < 64; i += 1) a[i] = (i * 37 + 11) & 0xff;
    for (const [aOffset, bOffset] of [
      [0, 0],
      [16, 48],
      [3, 29],
    ] as const) {
      a.copy(b, bOffset, aOffset, aOffset + SLOT_SIZE);
      assert.equal(sameSlot(a, aOffset, b, bOffset), true);
      for (let i = 0; i < SLOT_SIZE; i += 1) {
        b[bOffset + i] = (b[bOffset + i] ?? 0) ^ 0x80;
        const expected = a.compare(b, bOffset, bOffset + SLOT_SIZE, aOffset, aOffset + SLOT_SIZE) === 0;
        assert.equal(expected, false);
        assert.equal(sameSlot(a, aOffset, b, bOffset), expected, `byte ${i} differs (offsets ${aOffset}, ${bOffset})`);
        b[bOffset + i] = (b[bOffset + i] ?? 0) ^ 0x80;
      }
    }
  });

  it('compares 16 bytes only, and a slot cut short by the buffer differs', () => {
    const a = Buffer.alloc(32, 7);
    const b = Buffer.alloc(32, 7);
    b[16] = 8;
    assert.equal(sameSlot(a, 0, b, 0), true);
    assert.equal(sameSlot(a, 16, b, 16), false);
    assert.equal(sameSlot(a, 0, b.subarray(0, 15), 0), false);
  });
});

describe('slotIsFree', () => {
  it('is true for 16 zero bytes only, a non-zero byte at any position making it taken', () => {
    const table = Buffer.alloc(3 * SLOT_SIZE);
    for (const offset of [0, SLOT_SIZE, 5]) {
      assert.equal(slotIsFree(table, offset), true);
      for (let i = 0; i < SLOT_SIZE; i += 1) {
        table[offset + i] = 1;
        assert.equal(slotIsFree(table, offset), false, `byte ${i} set (offset ${offset})`);
        table[offset + i] = 0;
      }
    }
    assert.equal(slotIsFree(FREE_SLOT, 0), true);
    // Past the buffer's end: not 16 zero bytes.
    assert.equal(slotIsFree(table, table.length - 8), false);
  });
});
