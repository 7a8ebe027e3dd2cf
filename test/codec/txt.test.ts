import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { decodeTxt } from '../../src/codec/decodeTxt.js';
import { encodeTxt } from '../../src/codec/encodeTxt.js';
import { WorkerDecodeError } from '../../src/errors/WorkerDecodeError.js';
import { DEFAULT_CHANNEL_OPTIONS } from '../../src/model/DEFAULT_CHANNEL_OPTIONS.js';
import { sameWorker } from '../../src/model/sameWorker.js';
import { workerInfo } from '../../src/model/workerInfo.js';
import { worker as anyWorker } from './arbitraries.js';
import { vectors } from './vectors.js';

const UID = '6f1d2b1c-4c0b-4e7e-9a56-0c2b9d1d7e11';
const WHERE = { uid: UID, address: '127.0.0.1:50051' };
const BASE = { pid: '4242', version: '0.13.1', tags: null, extra: null, secure: 'false' };

function rejects(txt: Parameters<typeof decodeTxt>[0], pattern: RegExp, where = WHERE): WorkerDecodeError {
  let caught: unknown;
  try {
    decodeTxt(txt, where);
  } catch (error) {
    caught = error;
  }
  assert.ok(caught instanceof WorkerDecodeError, `expected WorkerDecodeError, got ${String(caught)}`);
  assert.match(caught.message, pattern);
  return caught;
}

// The vector's worker fields, without its expected encodings (workerInfo refuses unknown keys).
const fields = ({ protobuf_hex: _hex, txt: _txt, ...worker }: (typeof vectors)[number]) => worker;
const withoutOptions = (worker: ReturnType<typeof workerInfo>) => workerInfo({ ...worker, options: undefined });

describe('encodeTxt: wool vectors', () => {
  for (const vector of vectors) {
    const worker = workerInfo({ ...fields(vector), options: undefined });
    const extraKeys = Object.keys(vector.extra).length;
    it(`writes the vector's txt for ${vector.uid}`, () => {
      const txt = encodeTxt(worker);
      assert.deepEqual(Object.keys(txt), Object.keys(vector.txt));
      if (extraKeys <= 1) {
        assert.deepEqual(txt, vector.txt);
      } else {
        // wool writes extra in insertion order, we in sorted order: compare the JSON's meaning.
        assert.deepEqual({ ...txt, extra: null }, { ...vector.txt, extra: null });
        assert.deepEqual(JSON.parse(txt.extra ?? 'null'), JSON.parse(vector.txt['extra'] ?? 'null'));
      }
    });
  }

  it("writes JSON exactly as Python's json.dumps (separators, ensure_ascii escapes)", () => {
    const worker = workerInfo({
      uid: UID,
      address: 'h:1',
      pid: 7,
      version: 'ü-2',
      tags: ['gpu', 'ü', 'say "hi"'],
      extra: { zone: 'Zürich', emoji: '\u{1F600}', ctl: 'a\nb\t\u0001\u007f\\', 'ké': 'v' },
      secure: true,
    });
    assert.deepEqual(encodeTxt(worker), {
      pid: '7',
      version: 'ü-2',
      // json.dumps(['gpu', 'say "hi"', 'ü'])
      tags: '["gpu", "say \\"hi\\"", "\\u00fc"]',
      // json.dumps({'ctl': ..., 'emoji': ..., 'ké': 'v', 'zone': 'Zürich'})
      extra:
        '{"ctl": "a\\nb\\t\\u0001\\u007f\\\\", "emoji": "\\ud83d\\ude00", "k\\u00e9": "v", "zone": "Z\\u00fcrich"}',
      secure: 'true',
    });
  });

  it('sends empty tags and extra as bare keys (null)', () => {
    const txt = encodeTxt(workerInfo({ uid: UID, address: 'h:1', pid: 0, version: 'v' }));
    assert.equal(txt['tags'], null);
    assert.equal(txt['extra'], null);
    assert.ok(Object.isFrozen(txt));
  });

  it('refuses an empty version (readers would skip the record)', () => {
    assert.throws(() => encodeTxt(workerInfo({ uid: UID, address: 'h:1', pid: 0, version: '' })), /version: ""/);
  });

  it('refuses a version with a lone surrogate (TXT values are UTF-8)', () => {
    assert.throws(() => encodeTxt(workerInfo({ uid: UID, address: 'h:1', pid: 0, version: '\uD800' })), TypeError);
  });
});

describe('decodeTxt: wool vectors', () => {
  for (const vector of vectors) {
    it(`decodes the txt of ${vector.uid}`, () => {
      const worker = decodeTxt(vector.txt, { uid: vector.uid, address: vector.address });
      assert.ok(sameWorker(worker, workerInfo({ ...fields(vector), options: undefined })));
      assert.equal(worker.options, DEFAULT_CHANNEL_OPTIONS);
    });

    it(`decodes the txt of ${vector.uid} as bonjour-service gives it (bytes, true for bare keys)`, () => {
      const binary = Object.fromEntries(
        Object.entries(vector.txt).map(([key, value]) => [
          key,
          value === null ? true : new TextEncoder().encode(value),
        ]),
      );
      const fromBuffers = Object.fromEntries(
        Object.entries(vector.txt).map(([key, value]) => [key, value === null ? true : Buffer.from(value)]),
      );
      const expected = decodeTxt(vector.txt, { uid: vector.uid, address: vector.address });
      assert.ok(sameWorker(decodeTxt(binary, { uid: vector.uid, address: vector.address }), expected));
      assert.ok(sameWorker(decodeTxt(fromBuffers, { uid: vector.uid, address: vector.address }), expected));
    });
  }
});

describe('decodeTxt: semantics', () => {
  it('treats bare, empty and absent tags/extra as empty', () => {
    for (const empty of [null, true, '', undefined, new Uint8Array(0)]) {
      const worker = decodeTxt({ ...BASE, tags: empty, extra: empty }, WHERE);
      assert.deepEqual([...worker.tags], []);
      assert.deepEqual({ ...worker.extra }, {});
    }
    const worker = decodeTxt({ pid: '1', version: 'v' }, WHERE);
    assert.equal(worker.secure, false);
  });

  it('ignores unknown keys and matches keys case-insensitively', () => {
    const worker = decodeTxt({ PID: '9', Version: '2', SECURE: 'true', future: 'x', bare: true }, WHERE);
    assert.equal(worker.pid, 9);
    assert.equal(worker.version, '2');
    assert.equal(worker.secure, true);
  });

  it('keeps a "__proto__" extra key as data', () => {
    const worker = decodeTxt({ ...BASE, extra: '{"__proto__": "x"}' }, WHERE);
    assert.deepEqual(Object.entries(worker.extra), [['__proto__', 'x']]);
    assert.equal(({} as Record<string, unknown>)['x'], undefined);
  });
});

describe('decodeTxt: bad records', () => {
  it('rejects a record without pid or version, naming the key', () => {
    rejects({ version: '1' }, /missing pid/);
    rejects({ pid: '1' }, /missing version/);
    rejects({ pid: true, version: '1' }, /missing pid/);
    rejects({ pid: '1', version: '' }, /missing version/);
    rejects({}, /missing pid/);
  });

  it('rejects a non-decimal pid, naming it', () => {
    for (const pid of ['-1', '4.2', '0x10', ' 42', 'abc', '1e3'])
      rejects({ ...BASE, pid }, new RegExp(`pid.*${JSON.stringify(pid).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
  });

  it('rejects a pid beyond int32 (workerInfo TypeError as cause)', () => {
    const error = rejects({ ...BASE, pid: '2147483648' }, /pid.*2147483648/);
    assert.ok(error.cause instanceof TypeError);
  });

  it('rejects secure other than true/false, naming it', () => {
    rejects({ ...BASE, secure: 'yes' }, /secure.*"yes"/);
    rejects({ ...BASE, secure: '' }, /secure/);
  });

  it('rejects tags or extra that are not JSON of the right shape, naming key and value', () => {
    rejects({ ...BASE, tags: '[gpu' }, /tags.*"\[gpu"/);
    rejects({ ...BASE, tags: '{"a": "b"}' }, /tags/);
    rejects({ ...BASE, tags: '[1]' }, /tags.*\[1\]/);
    rejects({ ...BASE, extra: '{"a": 1}' }, /extra.*"a"/);
    rejects({ ...BASE, extra: '["a"]' }, /extra/);
    rejects({ ...BASE, extra: 'null' }, /extra/);
    rejects({ ...BASE, extra: '{zone}' }, /extra.*\{zone\}/);
  });

  it('rejects bytes that are not UTF-8, naming the key', () => {
    rejects({ ...BASE, version: Uint8Array.of(0xff, 0xfe) }, /version.*UTF-8/);
  });

  it('rejects a bad uid or address from the instance / address records', () => {
    const error = rejects(BASE, /uid/, { uid: 'nope', address: '127.0.0.1:1' });
    assert.ok(error.cause instanceof TypeError);
    rejects(BASE, /address/, { uid: UID, address: '127.0.0.1' });
  });

  it('rejects a value of the wrong type', () => {
    rejects({ ...BASE, pid: 42 as unknown as string }, /pid.*42/);
    rejects(null as unknown as Record<string, string>, /TXT record/);
  });
});

describe('TXT codec: properties', () => {
  it('encode → decode gives the same worker (options are not sent)', () => {
    fc.assert(
      fc.property(
        anyWorker.filter((worker) => worker.version !== ''),
        (worker) => {
          const decoded = decodeTxt(encodeTxt(worker), { uid: worker.uid, address: worker.address });
          assert.ok(sameWorker(decoded, withoutOptions(worker)));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('the JSON is pure ASCII and means what JSON.stringify means', () => {
    fc.assert(
      fc.property(
        anyWorker.filter((worker) => worker.version !== ''),
        (worker) => {
          const txt = encodeTxt(worker);
          for (const key of ['tags', 'extra'] as const) {
            const value = txt[key];
            if (value == null) continue;
            assert.match(value, /^[\x20-\x7e]*$/);
            assert.deepEqual(JSON.parse(value), key === 'tags' ? [...worker.tags] : { ...worker.extra });
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('arbitrary records give a valid worker or a WorkerDecodeError, nothing else', () => {
    const value = fc.oneof(
      fc.string(),
      fc.constant(null),
      fc.constant(true),
      fc.uint8Array({ maxLength: 8 }),
      fc.integer().map(String),
      fc.json(),
    );
    const record = fc.dictionary(fc.constantFrom('pid', 'version', 'tags', 'extra', 'secure', 'other'), value);
    fc.assert(
      fc.property(record, (txt) => {
        try {
          const worker = decodeTxt(txt, WHERE);
          assert.ok(Object.isFrozen(worker));
        } catch (error) {
          if (!(error instanceof WorkerDecodeError)) throw error;
        }
      }),
      { numRuns: 2000 },
    );
  });
});
