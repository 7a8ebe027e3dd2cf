/**
 * One key of a range response: `key` and `value` are views into the
 * response's bytes (not copies).
 * @internal
 */
export interface RangeRecord {
  readonly key: Buffer;
  readonly value: Buffer;
  /** The key's `mod_revision` (a `bigint` only beyond `Number.MAX_SAFE_INTEGER`). */
  readonly modRevision: number | bigint;
}

/**
 * What the initial read uses of an etcd `RangeResponse`.
 * @internal
 */
export interface RangePage {
  /** The store's revision the response was served at (`header.revision`), in decimal. */
  readonly revision: string;
  readonly records: RangeRecord[];
  /** Whether the range holds more keys than the request's limit let through. */
  readonly more: boolean;
  /** How many keys the range holds (at the response's revision), limit or not. */
  readonly count: number;
}

const EMPTY: Buffer = Buffer.alloc(0);

/** Reads a protobuf message's fields; every read is bounds-checked. */
class Cursor {
  pos: number;
  end: number;

  constructor(
    readonly bytes: Buffer,
    start: number,
    end: number,
  ) {
    this.pos = start;
    this.end = end;
  }

  /** A varint of at most 32 significant bits (a tag or a length), as an unsigned number. */
  uint32(): number {
    let value = 0;
    for (let shift = 0; shift < 35; shift += 7) {
      const byte = this.#byte();
      value += (byte & 0x7f) * 2 ** shift;
      if (byte < 0x80) return value > 0xffff_ffff ? this.#fail('a varint beyond 32 bits') : value;
    }
    return this.#fail('a varint beyond 32 bits');
  }

  /** An int64 varint: a number while exact, else a bigint (two's complement, as protobuf's int64). */
  int64(): number | bigint {
    let value = 0;
    for (let shift = 0; shift < 49; shift += 7) {
      const byte = this.#byte();
      value += (byte & 0x7f) * 2 ** shift;
      if (byte < 0x80) return value;
    }
    // More than 7 bytes: exactly, as a bigint.
    let big = BigInt(value);
    for (let shift = 49n; shift < 70n; shift += 7n) {
      const byte = this.#byte();
      big |= BigInt(byte & 0x7f) << shift;
      if (byte < 0x80) {
        const signed = BigInt.asIntN(64, big);
        return signed >= BigInt(Number.MIN_SAFE_INTEGER) && signed <= BigInt(Number.MAX_SAFE_INTEGER)
          ? Number(signed)
          : signed;
      }
    }
    return this.#fail('a varint longer than 10 bytes');
  }

  /** Whether a varint is not zero. */
  bool(): boolean {
    let nonZero = false;
    for (let i = 0; i < 10; i++) {
      const byte = this.#byte();
      if ((byte & 0x7f) !== 0) nonZero = true;
      if (byte < 0x80) return nonZero;
    }
    return this.#fail('a varint longer than 10 bytes');
  }

  /** The end of a length-delimited field that starts here (the length is read). */
  delimited(): number {
    const length = this.uint32();
    const end = this.pos + length;
    if (end > this.end) this.#fail('a field running past the end of its message');
    return end;
  }

  /** Skips a field's value of the given wire type. */
  skip(wireType: number): void {
    switch (wireType) {
      case 0:
        this.bool();
        return;
      case 1:
        this.#advance(8);
        return;
      case 2:
        this.pos = this.delimited();
        return;
      case 5:
        this.#advance(4);
        return;
      default:
        this.#fail(`wire type ${wireType}`);
    }
  }

  #advance(count: number): void {
    if (this.pos + count > this.end) this.#fail('a field running past the end of its message');
    this.pos += count;
  }

  #byte(): number {
    if (this.pos >= this.end) this.#fail('a varint running past the end of its message');
    return this.bytes[this.pos++] as number;
  }

  #fail(what: string): never {
    throw new RangeError(`Malformed etcd RangeResponse: ${what} at byte ${this.pos}`);
  }
}

function decodeKeyValue(cursor: Cursor, end: number): RangeRecord {
  const outer = cursor.end;
  cursor.end = end;
  const { bytes } = cursor;
  let key = EMPTY;
  let value = EMPTY;
  let modRevision: number | bigint = 0;
  while (cursor.pos < end) {
    const tag = cursor.uint32();
    const wireType = tag & 7;
    const field = tag >>> 3;
    if (field === 1 && wireType === 2) {
      const stop = cursor.delimited();
      key = bytes.subarray(cursor.pos, stop);
      cursor.pos = stop;
    } else if (field === 5 && wireType === 2) {
      const stop = cursor.delimited();
      value = bytes.subarray(cursor.pos, stop);
      cursor.pos = stop;
    } else if (field === 3 && wireType === 0) {
      modRevision = cursor.int64();
    } else {
      cursor.skip(wireType);
    }
  }
  cursor.end = outer;
  return { key, value, modRevision };
}

function decodeHeaderRevision(cursor: Cursor, end: number, revision: number | bigint): number | bigint {
  const outer = cursor.end;
  cursor.end = end;
  while (cursor.pos < end) {
    const tag = cursor.uint32();
    if (tag === ((3 << 3) | 0)) revision = cursor.int64();
    else cursor.skip(tag & 7);
  }
  cursor.end = outer;
  return revision;
}

/**
 * Decodes the bytes of an etcd `etcdserverpb.RangeResponse` (see etcd's
 * `rpc.proto`), keeping only what a read of a prefix needs: the header's
 * revision, each key's key, value and `mod_revision`, `more` and `count`.
 *
 * etcd3's own decoding builds every field of every key, with each int64
 * (four per key) turned into a string through a `Long`, and a default
 * buffer for `key` and `value` before their real ones; this one makes one
 * small object and two views per key.
 * Follows protobuf's rules: unknown fields are skipped, a missing field is
 * its zero value, the last of a repeated scalar wins.
 * @param bytes The serialized response.
 * @throws {RangeError} When the bytes are not a well-formed message.
 * @internal
 */
export function decodeRangeResponse(bytes: Uint8Array): RangePage {
  const buffer = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const cursor = new Cursor(buffer, 0, buffer.length);
  const records: RangeRecord[] = [];
  let revision: number | bigint = 0;
  let more = false;
  let count: number | bigint = 0;
  while (cursor.pos < cursor.end) {
    const tag = cursor.uint32();
    const wireType = tag & 7;
    const field = tag >>> 3;
    if (field === 2 && wireType === 2) {
      const end = cursor.delimited();
      records.push(decodeKeyValue(cursor, end));
    } else if (field === 1 && wireType === 2) {
      const end = cursor.delimited();
      revision = decodeHeaderRevision(cursor, end, revision);
    } else if (field === 3 && wireType === 0) {
      more = cursor.bool();
    } else if (field === 4 && wireType === 0) {
      count = cursor.int64();
    } else {
      cursor.skip(wireType);
    }
  }
  return { revision: String(revision), records, more, count: Number(count) };
}
