/**
 * What a subscriber keeps of the record it last took from a worker's block,
 * instead of its bytes: their length and the first 64 bits of their
 * {@link recordDigest}. Enough to tell a changed record from the same one
 * (two different records of one worker agree in both with a probability of
 * 2^-64), at 24 bytes per worker instead of a buffer of every record.
 * @internal
 */
export interface RecordDigest {
  /** The record's length (length prefix included); 0 when none was taken. */
  readonly taken: number;
  /** The digest's first 32 bits. */
  readonly digestA: number;
  /** Its next 32 bits. */
  readonly digestB: number;
}

const C1 = 0x239b961b;
const C2 = 0xab0e9789;
const C3 = 0x38b34ae5;
const C4 = 0xa1e38b93;

const rotl = (x: number, r: number): number => (x << r) | (x >>> (32 - r));

function fmix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}

/** The little-endian 32-bit word at `i` (all four bytes within the data). */
const word = (b: Uint8Array, i: number): number =>
  (b[i] ?? 0) | ((b[i + 1] ?? 0) << 8) | ((b[i + 2] ?? 0) << 16) | ((b[i + 3] ?? 0) << 24);

/** The last 1-4 bytes of a 16-byte lane, little-endian (`count` of them, from `i`). */
function tailWord(b: Uint8Array, i: number, count: number): number {
  let k = 0;
  for (let j = count - 1; j >= 0; j -= 1) k = (k << 8) | (b[i + j] ?? 0);
  return k;
}

/**
 * MurmurHash3_x86_128 (seed 0) of `bytes[0, length)`, written as four
 * signed 32-bit words into `out` (allocates nothing): a fast, well-mixed
 * digest in plain JavaScript, for telling whether a worker's record changed
 * without keeping its bytes (see {@link RecordDigest}). Not a cryptographic
 * hash: the records it compares come from the namespace's own user.
 *
 * @example
 * const out = new Int32Array(4);
 * recordDigest(Buffer.from('hello'), 5, out); // out: MurmurHash3_x86_128('hello', 0), as 4 words
 *
 * @param bytes The data.
 * @param length How many of its bytes, from offset 0.
 * @param out Receives the digest's four 32-bit words, in the reference implementation's order.
 * @internal
 */
export function recordDigest(bytes: Uint8Array, length: number, out: Int32Array): void {
  let h1 = 0;
  let h2 = 0;
  let h3 = 0;
  let h4 = 0;
  const blocks = length - (length % 16);
  for (let i = 0; i < blocks; i += 16) {
    let k1 = word(bytes, i);
    let k2 = word(bytes, i + 4);
    let k3 = word(bytes, i + 8);
    let k4 = word(bytes, i + 12);
    k1 = Math.imul(rotl(Math.imul(k1, C1), 15), C2);
    h1 ^= k1;
    h1 = (Math.imul(rotl(h1, 19) + h2, 5) + 0x561ccd1b) | 0;
    k2 = Math.imul(rotl(Math.imul(k2, C2), 16), C3);
    h2 ^= k2;
    h2 = (Math.imul(rotl(h2, 17) + h3, 5) + 0x0bcaa747) | 0;
    k3 = Math.imul(rotl(Math.imul(k3, C3), 17), C4);
    h3 ^= k3;
    h3 = (Math.imul(rotl(h3, 15) + h4, 5) + 0x96cd1c35) | 0;
    k4 = Math.imul(rotl(Math.imul(k4, C4), 18), C1);
    h4 ^= k4;
    h4 = (Math.imul(rotl(h4, 13) + h1, 5) + 0x32ac3b17) | 0;
  }
  // The tail (0-15 bytes), lane by lane as the reference's fall-through switch.
  const rest = length - blocks;
  if (rest > 12) h4 ^= Math.imul(rotl(Math.imul(tailWord(bytes, blocks + 12, rest - 12), C4), 18), C1);
  if (rest > 8) h3 ^= Math.imul(rotl(Math.imul(tailWord(bytes, blocks + 8, Math.min(rest - 8, 4)), C3), 17), C4);
  if (rest > 4) h2 ^= Math.imul(rotl(Math.imul(tailWord(bytes, blocks + 4, Math.min(rest - 4, 4)), C2), 16), C3);
  if (rest > 0) h1 ^= Math.imul(rotl(Math.imul(tailWord(bytes, blocks, Math.min(rest, 4)), C1), 15), C2);
  h1 ^= length;
  h2 ^= length;
  h3 ^= length;
  h4 ^= length;
  h1 = (h1 + h2 + h3 + h4) | 0;
  h2 = (h2 + h1) | 0;
  h3 = (h3 + h1) | 0;
  h4 = (h4 + h1) | 0;
  h1 = fmix(h1);
  h2 = fmix(h2);
  h3 = fmix(h3);
  h4 = fmix(h4);
  h1 = (h1 + h2 + h3 + h4) | 0;
  out[0] = h1;
  out[1] = h2 + h1;
  out[2] = h3 + h1;
  out[3] = h4 + h1;
}
