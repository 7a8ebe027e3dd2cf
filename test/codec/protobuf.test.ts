import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import $protobuf from 'protobufjs/minimal.js';
import { decodeWorker, decodeWorkerSharing } from '../../src/codec/decodeWorker.js';
import { encodeWorker } from '../../src/codec/encodeWorker.js';
import { WorkerDecodeError } from '../../src/errors/WorkerDecodeError.js';
import { DEFAULT_CHANNEL_OPTIONS } from '../../src/model/DEFAULT_CHANNEL_OPTIONS.js';
import { sameWorker } from '../../src/model/sameWorker.js';
import type { WorkerInfo } from '../../src/model/types.js';
import { workerInfo } from '../../src/model/workerInfo.js';
import { worker as anyWorker } from './arbitraries.js';
import { fromHex, toHex, vectorOptions, vectors } from './vectors.js';

const UID = '6f1d2b1c-4c0b-4e7e-9a56-0c2b9d1d7e11';

/** A hand-built WorkerMetadata message, field by field, to craft good and bad input. */
function message(build: (w: $protobuf.Writer) => void): Uint8Array {
  const writer = new $protobuf.Writer();
  build(writer);
  return writer.finish();
}

function base(w: $protobuf.Writer, { uid = UID, address = '127.0.0.1:50051', pid = 42, version = '1.0' } = {}): void {
  w.uint32((1 << 3) | 2).string(uid);
  w.uint32((2 << 3) | 2).string(address);
  w.uint32((3 << 3) | 0).int32(pid);
  w.uint32((4 << 3) | 2).string(version);
}

function rejects(bytes: Uint8Array, pattern?: RegExp, causeType: ErrorConstructor = Error): WorkerDecodeError {
  let caught: unknown;
  try {
    decodeWorker(bytes);
  } catch (error) {
    caught = error;
  }
  assert.ok(caught instanceof WorkerDecodeError, `expected WorkerDecodeError, got ${String(caught)}`);
  assert.equal(caught.code, 'WOOLRX_DECODE');
  assert.ok(caught.cause instanceof causeType, `cause ${String(caught.cause)} is not a ${causeType.name}`);
  if (pattern) assert.match(caught.message, pattern);
  return caught;
}

/** The only outcomes allowed for any input: a valid, frozen worker or a WorkerDecodeError. */
function decodesOrRejects(bytes: Uint8Array): WorkerInfo | WorkerDecodeError {
  try {
    const worker = decodeWorker(bytes);
    assert.ok(Object.isFrozen(worker) && Object.isFrozen(worker.options) && Object.isFrozen(worker.tags));
    assert.ok(sameWorker(workerInfo(worker), worker), 'decoded worker does not re-validate');
    return worker;
  } catch (error) {
    if (error instanceof WorkerDecodeError) return error;
    throw error;
  }
}

describe('decodeWorker: wool vectors', () => {
  for (const vector of vectors) {
    it(`decodes ${vector.uid} to exactly the listed fields`, () => {
      const worker = decodeWorker(fromHex(vector.protobuf_hex));
      assert.deepEqual(
        { ...worker, tags: [...worker.tags], extra: { ...worker.extra }, options: { ...worker.options } },
        {
          uid: vector.uid,
          address: vector.address,
          pid: vector.pid,
          version: vector.version,
          tags: [...vector.tags].sort(),
          extra: vector.extra,
          secure: vector.secure,
          options: vectorOptions(vector),
        },
      );
      assert.ok(Object.isFrozen(worker));
    });

    it(`decodes ${vector.uid} from a Node Buffer too`, () => {
      const worker = decodeWorker(Buffer.from(vector.protobuf_hex, 'hex'));
      assert.ok(sameWorker(worker, decodeWorker(fromHex(vector.protobuf_hex))));
    });
  }

  it('has vectors to check (the file was read)', () => {
    assert.ok(vectors.length >= 3);
  });
});

describe('encodeWorker: wool vectors', () => {
  for (const vector of vectors) {
    const worker = workerInfo({
      uid: vector.uid,
      address: vector.address,
      pid: vector.pid,
      version: vector.version,
      tags: vector.tags,
      extra: vector.extra,
      secure: vector.secure,
      options: vectorOptions(vector),
    });
    if (Object.keys(vector.extra).length <= 1) {
      it(`writes wool's exact bytes for ${vector.uid}`, () => {
        assert.equal(toHex(encodeWorker(worker)), vector.protobuf_hex);
      });
    }
    it(`round-trips ${vector.uid}`, () => {
      assert.ok(sameWorker(decodeWorker(encodeWorker(worker)), worker));
    });
  }

  it('always writes connection, even with default options', () => {
    const bytes = encodeWorker(workerInfo({ uid: UID, address: 'h:1', pid: 0, version: '' }));
    // uid (38 bytes) + address (5) then field 8, length-delimited.
    assert.equal(bytes[38 + 5], (8 << 3) | 2);
  });

  it('returns a fresh, exactly-sized Uint8Array (not a pooled view or a Buffer)', () => {
    const worker = decodeWorker(fromHex(vectors[0]!.protobuf_hex));
    const a = encodeWorker(worker);
    const b = encodeWorker(worker);
    assert.equal(Object.getPrototypeOf(a), Uint8Array.prototype);
    assert.equal(a.byteOffset, 0);
    assert.equal(a.buffer.byteLength, a.length);
    assert.notEqual(a.buffer, b.buffer);
    assert.deepEqual(a, b);
  });

  it('writes extra in sorted key order, so equal workers give equal bytes', () => {
    const one = workerInfo({ uid: UID, address: 'h:1', pid: 1, version: 'v', extra: { b: '2', a: '1' } });
    const two = workerInfo({
      uid: UID,
      address: 'h:1',
      pid: 1,
      version: 'v',
      extra: new Map([
        ['a', '1'],
        ['b', '2'],
      ]),
    });
    assert.deepEqual(encodeWorker(one), encodeWorker(two));
    const hex = toHex(encodeWorker(one));
    assert.ok(hex.indexOf(toHex(new TextEncoder().encode('a'))) < hex.indexOf('0a0162'));
  });

  it('refuses a lone surrogate (no UTF-8 form) with a TypeError naming the field', () => {
    // workerInfo already refuses such text; encodeWorker still guards against
    // hand-made objects that bypassed it.
    const valid = workerInfo({ uid: UID, address: 'h:1', pid: 1, version: 'v', extra: { k: 'x' } });
    assert.throws(() => workerInfo({ ...valid, version: 'bad\uD800' }), /version: .*lone UTF-16 surrogate/);
    const handMade = { ...valid, version: 'bad\uD800' } as WorkerInfo;
    assert.throws(
      () => encodeWorker(handMade),
      (error: unknown) => error instanceof TypeError && /version/.test(error.message),
    );
    const handMadeExtra = { ...valid, extra: { k: '\uDC00' } } as WorkerInfo;
    assert.throws(() => encodeWorker(handMadeExtra), /extra\["k"\]/);
    // A well-formed astral character is fine.
    const astral = workerInfo({ uid: UID, address: 'h:1', pid: 1, version: 'v\u{1F600}' });
    assert.equal(decodeWorker(encodeWorker(astral)).version, 'v\u{1F600}');
  });
});

describe('decodeWorker: semantics', () => {
  it('a message without connection decodes to DEFAULT_CHANNEL_OPTIONS', () => {
    const worker = decodeWorker(message((w) => base(w)));
    assert.equal(worker.options, DEFAULT_CHANNEL_OPTIONS);
    assert.equal(worker.pid, 42);
  });

  it('a present but empty connection means proto3 zeros, not the defaults', () => {
    const worker = decodeWorker(
      message((w) => {
        base(w);
        w.uint32((8 << 3) | 2).uint32(0);
      }),
    );
    assert.deepEqual(
      { ...worker.options },
      {
        maxReceiveMessageLength: 0,
        maxSendMessageLength: 0,
        keepaliveTimeMs: 0,
        keepaliveTimeoutMs: 0,
        keepalivePermitWithoutCalls: false,
        maxPingsWithoutData: 0,
        maxConcurrentStreams: 0,
        compression: 'none',
      },
    );
  });

  it('maps compression 1 and 2 to deflate and gzip', () => {
    for (const [code, name] of [
      [1, 'deflate'],
      [2, 'gzip'],
    ] as const) {
      const worker = decodeWorker(
        message((w) => {
          base(w);
          w.uint32((8 << 3) | 2)
            .fork()
            .uint32((8 << 3) | 0)
            .int32(code)
            .ldelim();
        }),
      );
      assert.equal(worker.options.compression, name);
    }
  });

  it('skips unknown fields', () => {
    const plain = fromHex(vectors[0]!.protobuf_hex);
    const extended = message((w) => {
      w.raw(plain);
      w.uint32((99 << 3) | 0).uint32(7);
      w.uint32((100 << 3) | 2).string('future');
    });
    assert.ok(sameWorker(decodeWorker(extended), decodeWorker(plain)));
  });

  it('keeps a "__proto__" extra key as data, without touching prototypes', () => {
    const worker = decodeWorker(
      message((w) => {
        base(w);
        w.uint32((6 << 3) | 2)
          .fork()
          .uint32(10)
          .string('__proto__')
          .uint32(18)
          .string('x')
          .ldelim();
      }),
    );
    assert.deepEqual(Object.entries(worker.extra), [['__proto__', 'x']]);
    assert.equal(Object.getPrototypeOf(worker.extra), Object.prototype);
    assert.equal(({} as Record<string, unknown>)['x'], undefined);
  });

  it('de-duplicates and sorts repeated tags', () => {
    const worker = decodeWorker(
      message((w) => {
        base(w);
        for (const tag of ['b', 'a', 'b']) w.uint32((5 << 3) | 2).string(tag);
      }),
    );
    assert.deepEqual([...worker.tags], ['a', 'b']);
  });
});

describe('decodeWorker: the same worker as workerInfo', () => {
  const uid = fc.oneof(
    fc.uuid(),
    fc.uuid().map((u) => u.toUpperCase()),
    fc.constant('00000000-0000-0000-0000-000000000000'),
    fc.constant('not-a-uid'),
  );
  const key = fc.oneof(fc.string({ maxLength: 6 }), fc.constantFrom('__proto__', '1', '10', '9', 'toString'));
  const fields = fc.record({
    uid,
    address: fc.oneof(
      fc.constantFrom('127.0.0.1:50051', '[::1]:9', 'unix:/s', 'no-port', ':1'),
      fc.string({ maxLength: 8 }),
    ),
    pid: fc.oneof(fc.integer({ min: -3, max: 3 }), fc.constant(2_147_483_647)),
    version: fc.string({ maxLength: 4 }),
    tags: fc.array(fc.string({ maxLength: 3 }), { maxLength: 5 }),
    extra: fc.array(fc.tuple(key, fc.string({ maxLength: 3 })), { maxLength: 5 }),
    secure: fc.boolean(),
  });

  it('any field values decode to exactly what workerInfo() makes of them (key order included), or fail as it does', () => {
    fc.assert(
      fc.property(fields, (f) => {
        const bytes = message((w) => {
          base(w, { uid: f.uid, address: f.address, pid: f.pid, version: f.version });
          for (const tag of f.tags) w.uint32((5 << 3) | 2).string(tag);
          for (const [k, v] of f.extra)
            w.uint32((6 << 3) | 2)
              .fork()
              .uint32(10)
              .string(k)
              .uint32(18)
              .string(v)
              .ldelim();
          if (f.secure) w.uint32((7 << 3) | 0).bool(true);
        });
        // What the wire means: empty strings are absent fields, a later map entry replaces an earlier one.
        const extra = new Map<string, string>();
        for (const [k, v] of f.extra) extra.set(k, v);
        let expected: WorkerInfo | string;
        try {
          expected = workerInfo({
            uid: f.uid,
            address: f.address,
            pid: f.pid,
            version: f.version,
            tags: f.tags,
            extra,
            secure: f.secure,
          });
        } catch (error) {
          expected = `Invalid worker metadata: ${(error as Error).message}`;
        }
        let got: WorkerInfo | string;
        try {
          got = decodeWorker(bytes);
        } catch (error) {
          assert.ok(error instanceof WorkerDecodeError);
          got = error.message;
        }
        if (typeof expected === 'string' || typeof got === 'string') {
          assert.equal(got, expected);
          return;
        }
        assert.deepEqual(got, expected);
        assert.deepEqual(Object.keys(got.extra), Object.keys(expected.extra));
        assert.deepEqual(Object.keys(got), Object.keys(expected));
        assert.ok(Object.isFrozen(got) && Object.isFrozen(got.tags) && Object.isFrozen(got.extra));
        assert.equal(Object.getPrototypeOf(got.extra), Object.prototype);
        assert.equal(workerInfo(got), got, 'a decoded worker is known to workerInfo()');
      }),
      { numRuns: 2000 },
    );
  });
});

describe('decodeWorker: bad input', () => {
  it('rejects an empty message (no uid)', () => {
    rejects(new Uint8Array(0), /uid/, TypeError);
  });

  it('rejects a bad uuid, naming it', () => {
    rejects(
      message((w) => base(w, { uid: 'not-a-uuid' })),
      /not-a-uuid/,
      TypeError,
    );
  });

  it('rejects a negative pid, naming it', () => {
    rejects(
      message((w) => base(w, { pid: -5 })),
      /pid.*-5/,
      TypeError,
    );
  });

  it('rejects an address without a port', () => {
    rejects(
      message((w) => base(w, { address: 'localhost' })),
      /localhost/,
      TypeError,
    );
  });

  it('rejects an unknown compression code, naming it', () => {
    for (const code of [3, 7, -1]) {
      rejects(
        message((w) => {
          base(w);
          w.uint32((8 << 3) | 2)
            .fork()
            .uint32((8 << 3) | 0)
            .int32(code)
            .ldelim();
        }),
        new RegExp(`compression.*${code}`),
        TypeError,
      );
    }
  });

  it('rejects invalid UTF-8 in a string field', () => {
    const bytes = message((w) => {
      w.uint32((1 << 3) | 2).string(UID);
      w.uint32((2 << 3) | 2).string('h:1');
      w.uint32((4 << 3) | 2).bytes(Uint8Array.of(0x76, 0xff, 0xfe));
    });
    rejects(bytes);
    rejects(Buffer.from(bytes)); // Node Buffers take protobufjs's BufferReader path: still strict.
    // Overlong encoding and an unpaired surrogate encoded as UTF-8 (CESU) too.
    for (const bad of [Uint8Array.of(0xc0, 0xaf), Uint8Array.of(0xed, 0xa0, 0x80)]) {
      rejects(
        message((w) => {
          base(w);
          w.uint32((5 << 3) | 2).bytes(bad);
        }),
      );
    }
  });

  it('rejects a field that claims more bytes than there are', () => {
    rejects(Uint8Array.of(0x0a, 0x7f, 0x41), /range|length|out of/i, RangeError);
  });

  it('rejects a bad wire type', () => {
    rejects(Uint8Array.of((1 << 3) | 7, 0));
  });

  it('rejects something that is not a Uint8Array', () => {
    for (const bad of ['0a24', null, [10, 36]]) {
      assert.throws(
        () => decodeWorker(bad as unknown as Uint8Array),
        (error: unknown) => {
          return error instanceof WorkerDecodeError && /expected a Uint8Array/.test(error.message);
        },
      );
    }
  });

  for (const vector of vectors) {
    it(`rejects every truncation of ${vector.uid} that cuts a field`, () => {
      const bytes = fromHex(vector.protobuf_hex);
      const connectionAt = bytes.lastIndexOf((8 << 3) | 2);
      assert.ok(connectionAt > 0);
      // Inside the uid (tag, length, 36 chars) and inside the trailing connection.
      for (let length = 1; length < 38; length++) rejects(bytes.subarray(0, length));
      for (let length = connectionAt + 1; length < bytes.length; length++) rejects(bytes.subarray(0, length));
      // Every other prefix: a valid worker or a decode error, nothing else.
      for (let length = 0; length < bytes.length; length++) decodesOrRejects(bytes.subarray(0, length));
    });
  }
});

describe('protobuf codec: properties', () => {
  it('encode → decode gives the same worker, and re-encoding gives the same bytes', () => {
    fc.assert(
      fc.property(anyWorker, (worker) => {
        const bytes = encodeWorker(worker);
        const decoded = decodeWorker(bytes);
        assert.ok(sameWorker(decoded, worker));
        assert.deepEqual(encodeWorker(decoded), bytes);
      }),
      { numRuns: 500 },
    );
  });

  it('random bytes give a valid worker or a WorkerDecodeError, nothing else', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => {
        decodesOrRejects(bytes);
      }),
      { numRuns: 2000 },
    );
  });

  it('corrupted vector bytes give a valid worker or a WorkerDecodeError, nothing else', () => {
    const vector = fc.constantFrom(...vectors.map((v) => fromHex(v.protobuf_hex)));
    fc.assert(
      fc.property(
        vector,
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 4 }),
        (original, edits) => {
          const bytes = original.slice();
          for (const [at, value] of edits) bytes[at % bytes.length] = value;
          decodesOrRejects(bytes);
        },
      ),
      { numRuns: 2000 },
    );
  });
});

describe('decodeWorkerSharing: what a subscriber decodes with', () => {
  it('decodes any worker to exactly what decodeWorker makes of it, sharing the version and every tag', () => {
    fc.assert(
      fc.property(anyWorker, fc.boolean(), fc.uuid(), (original, known, other) => {
        const bytes = encodeWorker(original);
        const given: string[] = [];
        const share = (value: string): string => {
          given.push(value);
          return value;
        };
        const worker = decodeWorkerSharing(bytes, known ? original.uid : other, share);
        assert.deepEqual(worker, decodeWorker(bytes));
        assert.ok(Object.isFrozen(worker) && Object.isFrozen(worker.tags) && Object.isFrozen(worker.options));
        assert.equal(workerInfo(worker), worker, 'a decoded worker is known to workerInfo()');
        // The uid is the record's, known or not: a record of another worker is still told apart.
        assert.equal(worker.uid, original.uid);
        assert.deepEqual(given.sort(), [original.version, ...original.tags].sort());
      }),
      { numRuns: 500 },
    );
  });

  it("takes what share hands back as the worker's version and tags", () => {
    const bytes = message((w) => {
      base(w, { version: '2.0' });
      for (const tag of ['gpu', 'eu']) w.uint32((5 << 3) | 2).string(tag);
    });
    const worker = decodeWorkerSharing(bytes, undefined, (value) => `${value}!`);
    assert.equal(worker.version, '2.0!');
    assert.deepEqual([...worker.tags], ['eu!', 'gpu!']);
    assert.equal(worker.uid, UID);
  });

  it('offers canonical tag lists, frozen, to shareTags and keeps what it hands back; others are normalised, not offered', () => {
    const offered: string[][] = [];
    const held = Object.freeze(['eu', 'gpu']) as string[];
    const shareTags = (tags: string[]): string[] => {
      assert.ok(Object.isFrozen(tags));
      offered.push([...tags]);
      return tags.length === 2 ? held : tags;
    };
    const encoded = (tags: string[]): Uint8Array =>
      message((w) => {
        base(w);
        for (const tag of tags) w.uint32((5 << 3) | 2).string(tag);
      });
    assert.equal(decodeWorkerSharing(encoded(['eu', 'gpu']), UID, (value) => value, shareTags).tags, held);
    // Unsorted, or with a duplicate (what another writer may send): normalised by workerInfo(), never offered.
    for (const tags of [
      ['gpu', 'eu'],
      ['eu', 'eu', 'gpu'],
    ]) {
      const worker = decodeWorkerSharing(encoded(tags), UID, (value) => value, shareTags);
      assert.deepEqual([...worker.tags], ['eu', 'gpu']);
      assert.notEqual(worker.tags, held);
    }
    const lone = decodeWorkerSharing(encoded(['gpu']), UID, (value) => value, shareTags);
    assert.deepEqual([...lone.tags], ['gpu']);
    assert.deepEqual(offered, [['eu', 'gpu'], ['gpu']]);
    assert.deepEqual(decodeWorkerSharing(encoded([]), UID, (value) => value, shareTags).tags, []);
    assert.equal(offered.length, 2, 'no tags: nothing offered');
  });

  it('rejects what decodeWorker rejects, the same way', () => {
    for (const bytes of [new Uint8Array(0), Uint8Array.of(0x0a, 0x05, 0x61)]) {
      const expected = rejects(bytes);
      assert.throws(
        () => decodeWorkerSharing(bytes, UID, (value) => value),
        (error: unknown) => error instanceof WorkerDecodeError && error.message === expected.message,
      );
    }
  });
});
