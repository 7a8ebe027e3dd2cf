// The initial read's decoder of etcd RangeResponses, against the decoding etcd3 does
// (protobufjs over etcd3's own rpc.proto, with etcd3's loader options).
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import protobuf from 'protobufjs';
import { decodeRangeResponse } from '../../../src/backends/etcd/decodeRangeResponse.js';

const require = createRequire(import.meta.url);
const root = new protobuf.Root().loadSync(join(dirname(require.resolve('etcd3/package.json')), 'proto', 'rpc.proto'), {
  keepCase: true,
});
const RangeResponse = root.lookupType('etcdserverpb.RangeResponse');

/** What etcd3 hands out for these bytes (its proto-loader options: keepCase, longs as strings, defaults). */
function viaEtcd3(bytes: Uint8Array): {
  revision: string;
  more: boolean;
  count: string;
  kvs: Array<{ key: Buffer; value: Buffer; mod_revision: string }>;
} {
  return RangeResponse.toObject(RangeResponse.decode(bytes), { longs: String, defaults: true }) as never;
}

const int64 = fc.oneof(
  fc.integer({ min: 0, max: 1_000_000 }),
  fc.bigInt({ min: 0n, max: 2n ** 63n - 1n }),
  fc.bigInt({ min: -(2n ** 63n), max: -1n }),
  fc.constantFrom(
    0n,
    2n ** 49n - 1n,
    2n ** 49n,
    2n ** 53n - 1n,
    2n ** 53n,
    2n ** 53n + 1n,
    2n ** 63n - 1n,
    -(2n ** 63n),
    -1n,
  ),
);
// protobufjs takes an int64 as decimal text in fromObject (through Long, exactly).
const long = (value: number | bigint): string => String(value);
const bytes = fc.uint8Array({ maxLength: 40 }).map((array) => Buffer.from(array));
const keyValue = fc.record({
  key: bytes,
  value: bytes,
  create_revision: int64,
  mod_revision: int64,
  version: int64,
  lease: int64,
});
const response = fc.record({
  revision: int64,
  cluster_id: int64,
  kvs: fc.array(keyValue, { maxLength: 8 }),
  more: fc.boolean(),
  count: int64,
});

type Response = typeof response extends fc.Arbitrary<infer T> ? T : never;

function encode(value: Response): Uint8Array {
  return RangeResponse.encode(
    RangeResponse.fromObject({
      header: {
        cluster_id: long(value.cluster_id),
        member_id: long(7),
        revision: long(value.revision),
        raft_term: long(3),
      },
      kvs: value.kvs.map((kv) => ({
        key: kv.key,
        value: kv.value,
        create_revision: long(kv.create_revision),
        mod_revision: long(kv.mod_revision),
        version: long(kv.version),
        lease: long(kv.lease),
      })),
      more: value.more,
      count: long(value.count),
    }),
  ).finish();
}

describe('decodeRangeResponse', () => {
  it('reads the revision, each key, value and mod_revision, more and count, as etcd3 does', () => {
    fc.assert(
      fc.property(response, (value) => {
        const encoded = encode(value);
        const page = decodeRangeResponse(encoded);
        const expected = viaEtcd3(encoded);
        assert.equal(page.revision, (expected as unknown as { header: { revision: string } }).header.revision);
        assert.equal(page.more, expected.more);
        assert.equal(page.count, Number(expected.count));
        assert.equal(page.records.length, expected.kvs.length);
        page.records.forEach((record, i) => {
          const kv = expected.kvs[i];
          assert.ok(kv !== undefined);
          assert.deepEqual(Buffer.from(record.key), Buffer.from(kv.key));
          assert.deepEqual(Buffer.from(record.value), Buffer.from(kv.value));
          assert.equal(String(record.modRevision), kv.mod_revision);
          assert.equal(typeof record.modRevision === 'number', Number.isSafeInteger(Number(kv.mod_revision)));
        });
      }),
      { numRuns: 300 },
    );
  });

  it('skips fields it does not know, of every wire type', () => {
    const writer = protobuf.Writer.create();
    writer.uint32((9 << 3) | 0).uint64(12345);
    writer.uint32((10 << 3) | 1).fixed64(1);
    writer.uint32((11 << 3) | 5).fixed32(1);
    writer.uint32((12 << 3) | 2).bytes(Buffer.from('ignored'));
    const known = encode({
      revision: 42,
      cluster_id: 1,
      kvs: [
        { key: Buffer.from('k'), value: Buffer.from('v'), create_revision: 1, mod_revision: 41, version: 1, lease: 0 },
      ],
      more: true,
      count: 1,
    });
    const page = decodeRangeResponse(Buffer.concat([writer.finish(), known]));
    assert.equal(page.revision, '42');
    assert.equal(page.more, true);
    assert.deepEqual(
      page.records.map((record) => [record.key.toString(), record.value.toString(), record.modRevision]),
      [['k', 'v', 41]],
    );
    // An empty message: every field at its zero value.
    assert.deepEqual(decodeRangeResponse(new Uint8Array(0)), { revision: '0', records: [], more: false, count: 0 });
  });

  it('keys and values are views into the response, not copies', () => {
    const encoded = Buffer.from(
      encode({
        revision: 5,
        cluster_id: 1,
        kvs: [
          {
            key: Buffer.from('key'),
            value: Buffer.from('value'),
            create_revision: 1,
            mod_revision: 2,
            version: 1,
            lease: 0,
          },
        ],
        more: false,
        count: 1,
      }),
    );
    const [record] = decodeRangeResponse(encoded).records;
    assert.ok(record !== undefined);
    assert.equal(record.key.buffer, encoded.buffer);
    assert.equal(record.value.buffer, encoded.buffer);
  });

  it('refuses a truncated or malformed message', () => {
    const encoded = encode({
      revision: 5,
      cluster_id: 1,
      kvs: [
        {
          key: Buffer.from('key'),
          value: Buffer.from('value'),
          create_revision: 1,
          mod_revision: 2,
          version: 1,
          lease: 0,
        },
      ],
      more: true,
      count: 1,
    });
    for (let cut = 1; cut < encoded.length; cut++) {
      const truncated = encoded.subarray(0, cut);
      let decodable = true;
      try {
        RangeResponse.decode(truncated);
      } catch {
        decodable = false;
      }
      if (decodable) assert.doesNotThrow(() => decodeRangeResponse(truncated), `cut at ${cut}`);
      else assert.throws(() => decodeRangeResponse(truncated), RangeError, `cut at ${cut}`);
    }
    assert.throws(() => decodeRangeResponse(Buffer.from([(1 << 3) | 3])), /wire type 3/);
    assert.throws(() => decodeRangeResponse(Buffer.from([0x80, 0x80, 0x80, 0x80, 0x80, 0x80])), RangeError);
  });
});
