import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { DEFAULT_CHANNEL_OPTIONS } from '../../src/model/DEFAULT_CHANNEL_OPTIONS.js';
import { workerInfo } from '../../src/model/workerInfo.js';
import type { WorkerInfoInit } from '../../src/model/types.js';

const base: WorkerInfoInit = {
  uid: '6f1d2b1c-4c0b-4e7e-9a56-0c2b9d1d7e11',
  address: '127.0.0.1:50051',
  pid: 4242,
  version: '0.13.1',
};

function rejects(overrides: Record<string, unknown>, pattern: RegExp): void {
  assert.throws(
    () => workerInfo({ ...base, ...overrides }),
    (error: unknown) => error instanceof TypeError && pattern.test(error.message),
  );
}

describe('workerInfo', () => {
  it('fills defaults and normalises', () => {
    const w = workerInfo({ ...base, uid: base.uid.toUpperCase(), tags: ['b', 'a', 'b'] });
    assert.equal(w.uid, base.uid);
    assert.deepEqual(w.tags, ['a', 'b']);
    assert.deepEqual(w.extra, {});
    assert.equal(w.secure, false);
    assert.equal(w.options, DEFAULT_CHANNEL_OPTIONS);
  });

  it('accepts tags as a Set and extra as a Map or pairs, sorting keys', () => {
    const fromMap = workerInfo({
      ...base,
      tags: new Set(['gpu']),
      extra: new Map([
        ['zone', 'eu-1'],
        ['rack', '7'],
      ]),
    });
    const fromPairs = workerInfo({
      ...base,
      extra: [
        ['rack', '7'],
        ['zone', 'eu-1'],
      ],
    });
    assert.deepEqual(Object.keys(fromMap.extra), ['rack', 'zone']);
    assert.deepEqual(fromMap.extra, fromPairs.extra);
    assert.deepEqual(fromMap.tags, ['gpu']);
  });

  it('is deeply frozen', () => {
    const w = workerInfo({ ...base, tags: ['x'], extra: { k: 'v' }, options: { keepaliveTimeMs: 5 } });
    assert.ok(Object.isFrozen(w));
    assert.ok(Object.isFrozen(w.tags));
    assert.ok(Object.isFrozen(w.extra));
    assert.ok(Object.isFrozen(w.options));
    assert.throws(() => {
      (w.tags as string[]).push('y');
    }, TypeError);
  });

  it('merges partial options over the defaults', () => {
    const w = workerInfo({ ...base, options: { maxReceiveMessageLength: 1024, compression: 'gzip' } });
    assert.equal(w.options.maxReceiveMessageLength, 1024);
    assert.equal(w.options.compression, 'gzip');
    assert.equal(w.options.keepaliveTimeMs, DEFAULT_CHANNEL_OPTIONS.keepaliveTimeMs);
  });

  it('keeps "__proto__" extra keys as data, never as a prototype', () => {
    const w = workerInfo({ ...base, extra: new Map([['__proto__', 'x']]) });
    assert.equal(Object.getPrototypeOf(w.extra), Object.prototype);
    assert.equal(Object.getOwnPropertyDescriptor(w.extra, '__proto__')?.value, 'x');
  });

  it('survives structuredClone and JSON unchanged', () => {
    const w = workerInfo({ ...base, tags: ['gpu'], extra: { zone: 'eu-1' }, secure: true });
    assert.deepEqual(structuredClone(w), { ...w, tags: [...w.tags], extra: { ...w.extra }, options: { ...w.options } });
    assert.deepEqual(workerInfo(JSON.parse(JSON.stringify(w)) as WorkerInfoInit), w);
  });

  it('rejects bad fields with a TypeError naming field and value', () => {
    rejects({ uid: 'not-a-uuid' }, /uid: "not-a-uuid"/);
    rejects({ uid: '00000000-0000-0000-0000-000000000000' }, /uid: .*non-nil/);
    rejects({ uid: 42 }, /uid: 42/);
    rejects({ address: 'localhost' }, /address: "localhost" \(no port/);
    rejects({ address: 'localhost:0' }, /address: "localhost:0"/);
    rejects({ address: 'localhost:65536' }, /address: "localhost:65536"/);
    rejects({ address: '::1:80' }, /must be bracketed/);
    rejects({ address: 'unix:' }, /unix address without a path/);
    rejects({ pid: -1 }, /pid: -1/);
    rejects({ pid: 1.5 }, /pid: 1.5/);
    rejects({ pid: 2 ** 31 }, /pid: 2147483648/);
    rejects({ pid: '12' }, /pid: "12"/);
    rejects({ version: 3 }, /version: 3/);
    rejects({ tags: 'gpu' }, /tags: "gpu"/);
    rejects({ tags: ['ok', 7] }, /tag: 7/);
    rejects({ extra: { zone: 1 } }, /extra\["zone"\]: 1/);
    rejects({ extra: 'a=b' }, /extra: "a=b"/);
    rejects({ secure: 'yes' }, /secure: "yes"/);
    rejects({ options: { keepaliveTimeMs: 2 ** 40 } }, /options.keepaliveTimeMs: 1099511627776/);
    rejects({ options: { compression: 'zstd' } }, /options.compression: "zstd"/);
    rejects({ options: { bogus: 1 } }, /options key: "bogus"/);
    rejects({ version: 'v\ud800' }, /version: .*lone UTF-16 surrogate/);
    rejects({ tags: ['\udc00'] }, /tag: .*lone UTF-16 surrogate/);
    rejects({ extra: { k: 'x\ud83d' } }, /extra\["k"\]: .*lone UTF-16 surrogate/);
  });

  it('rejects a key that is not a field, as the factories reject unknown options', () => {
    rejects({ tag: 'gpu' }, /^Invalid worker field: "tag" \(expected one of uid, address, .*; did you mean tags\?\)$/);
    rejects({ extras: { zone: 'eu' } }, /field: "extras" .*did you mean extra\?/);
    rejects(
      { host: 'x' },
      /^Invalid worker field: "host" \(expected one of uid, address, pid, version, tags, extra, secure, options\)$/,
    );
  });

  it('accepts paired surrogates (emoji) in text', () => {
    assert.equal(workerInfo({ ...base, version: '1.0 \u{1f680}' }).version, '1.0 \u{1f680}');
  });

  it('accepts every documented address form', () => {
    for (const address of [
      '127.0.0.1:1',
      'host.example:65535',
      '[::1]:9000',
      '[fe80::1%eth0]:80',
      'unix:/tmp/w.sock',
    ]) {
      assert.equal(workerInfo({ ...base, address }).address, address);
    }
  });

  it('never throws anything but TypeError, whatever it is given (property)', () => {
    fc.assert(
      fc.property(fc.anything(), fc.anything(), fc.anything(), (uid, pid, extra) => {
        try {
          workerInfo({ ...base, uid, pid, extra } as unknown as WorkerInfoInit);
        } catch (error) {
          assert.ok(error instanceof TypeError, String(error));
        }
      }),
    );
  });
});
