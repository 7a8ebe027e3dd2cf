// slotUid: the 16 bytes of a slot as a hyphenated lowercase UUID, checked
// against the plain hex rendering for every byte value at every position.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { slotHoldsUid, slotUid, uidBytes } from '../../../src/backends/local/segment/slotTable.js';

/** The reference rendering: hex, hyphens at 8-4-4-4-12. */
function reference(bytes: Buffer, offset: number): string {
  const hex = bytes.toString('hex', offset, offset + 16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

describe('slotUid', () => {
  it('round-trips uidBytes for random UUIDs', () => {
    for (let i = 0; i < 1000; i += 1) {
      const uid = randomUUID();
      assert.equal(slotUid(uidBytes(uid), 0), uid);
    }
  });

  it('renders every byte value at every position, at any offset', () => {
    const table = Buffer.alloc(3 * 16);
    for (let value = 0; value < 256; value += 1) {
      for (let position = 0; position < 16; position += 1) {
        table.fill(0xa5);
        table[16 + position] = value;
        assert.equal(slotUid(table, 16), reference(table, 16), `byte ${value} at ${position}`);
      }
    }
  });

  it('returns a fresh string each call (the previous result is not rewritten)', () => {
    const first = slotUid(uidBytes('00112233-4455-6677-8899-aabbccddeeff'), 0);
    slotUid(Buffer.alloc(16, 0xff), 0);
    assert.equal(first, '00112233-4455-6677-8899-aabbccddeeff');
  });
});

describe('slotHoldsUid', () => {
  it('agrees with slotUid for every byte value at every position, at any offset', () => {
    const table = Buffer.alloc(3 * 16);
    for (let value = 0; value < 256; value += 1) {
      for (let position = 0; position < 16; position += 1) {
        table.fill(0xa5);
        table[16 + position] = value;
        const uid = reference(table, 16);
        assert.equal(slotHoldsUid(table, 16, uid), true, `byte ${value} at ${position}`);
        const other = Buffer.from(table);
        other[16 + position] = (value + 1) % 256;
        assert.equal(slotHoldsUid(other, 16, uid), false, `byte ${value} at ${position} changed`);
      }
    }
  });

  it('another uid, an uppercase one, a cut one: not held', () => {
    const uid = randomUUID();
    const bytes = uidBytes(uid);
    assert.equal(slotHoldsUid(bytes, 0, randomUUID()), false);
    assert.equal(slotHoldsUid(bytes, 0, uid.toUpperCase()), /[a-f]/.test(uid) ? false : true);
    assert.equal(slotHoldsUid(bytes, 0, uid.slice(0, 35)), false);
  });
});
