// recordDigest: MurmurHash3_x86_128 (seed 0) in plain JavaScript, what a local subscriber keeps of
// each record it took instead of the record's bytes.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { recordDigest } from '../../../src/backends/local/block/recordDigest.js';

// Generated with the reference implementation through Python's mmh3 (mmh3.hash_bytes(data, 0,
// x64arch=False), read as four little-endian int32): every tail length (0-15 bytes past a 16-byte
// block), one and two blocks, and a record-sized input.
const VECTORS: Array<[Uint8Array, number[]]> = [
  [Buffer.from(''), [0, 0, 0, 0]],
  [Buffer.from('a'), [-1483435204, 1431744539, 1431744539, 1431744539]],
  [Buffer.from('hello'), [723797152, -611197193, -1696910922, -1696910922]],
  [Uint8Array.from({ length: 15 }, (_, i) => i), [1971035225, 1655104714, 1642257230, -898149018]],
  [Uint8Array.from({ length: 16 }, (_, i) => i), [1814415397, 1435599086, -363626380, -1985651729]],
  [Uint8Array.from({ length: 17 }, (_, i) => i), [1791597787, 899453963, -1374260307, -1569346735]],
  [Uint8Array.from({ length: 20 }, (_, i) => i), [722263250, -997819231, -1515893418, 1090162266]],
  [Uint8Array.from({ length: 31 }, (_, i) => i), [615224046, -1407350326, 1173732376, -1697260125]],
  [Uint8Array.from({ length: 32 }, (_, i) => i), [-693015811, -1535551616, -1212320395, -1746957874]],
  [Uint8Array.from({ length: 33 }, (_, i) => i), [1356731834, 1996067126, 552056432, 571328385]],
  [Uint8Array.from({ length: 150 }, (_, i) => (i * 7 + 3) & 255), [-1088551518, 1138761979, -1027093258, -1517553845]],
];

describe('recordDigest', () => {
  it('is MurmurHash3_x86_128 with seed 0, as the reference implementation computes it', () => {
    const out = new Int32Array(4);
    for (const [data, expected] of VECTORS) {
      recordDigest(data, data.length, out);
      assert.deepEqual([...out], expected, `${data.length} bytes`);
    }
  });

  it('digests only the first `length` bytes (a scratch buffer holds more)', () => {
    const record = randomBytes(150);
    const scratch = Buffer.alloc(4096, 0xee);
    record.copy(scratch);
    const a = new Int32Array(4);
    const b = new Int32Array(4);
    recordDigest(record, record.length, a);
    recordDigest(scratch, record.length, b);
    assert.deepEqual([...b], [...a]);
    recordDigest(scratch, record.length + 1, b);
    assert.notDeepEqual([...b], [...a], 'one byte more is another digest');
  });

  it('tells apart records one bit apart, and 20,000 random records by their first 64 bits', () => {
    const out = new Int32Array(4);
    const record = randomBytes(140);
    recordDigest(record, record.length, out);
    const base = `${out[0]},${out[1]}`;
    for (let bit = 0; bit < record.length * 8; bit += 1) {
      const flipped = Buffer.from(record);
      flipped[bit >> 3] = (flipped[bit >> 3] ?? 0) ^ (1 << (bit & 7));
      recordDigest(flipped, flipped.length, out);
      assert.notEqual(`${out[0]},${out[1]}`, base, `bit ${bit}`);
    }
    const seen = new Set<string>();
    for (let i = 0; i < 20_000; i += 1) {
      const data = randomBytes(100 + (i % 64));
      recordDigest(data, data.length, out);
      seen.add(`${out[0]},${out[1]}`);
    }
    assert.equal(seen.size, 20_000);
  });
});
