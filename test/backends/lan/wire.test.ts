// LAN wire format against wool's golden vectors (service types, TXT), the
// TXT string codec, the record set, host classification and option
// validation. No socket is opened here (asserted), so this file runs in the
// host's own network namespace.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { decodeTxt } from '../../../src/codec/decodeTxt.js';
import { decodeTxtEntries } from '../../../src/backends/lan/decodeTxtEntries.js';
import { encodeTxtEntries } from '../../../src/backends/lan/encodeTxtEntries.js';
import { isLoopbackHost } from '../../../src/model/isLoopbackHost.js';
import { isWildcardHost } from '../../../src/model/isWildcardHost.js';
import { lanDiscovery } from '../../../src/backends/lan/lanDiscovery.js';
import { lanServiceType } from '../../../src/backends/lan/lanServiceType.js';
import { TxtEntryTooLongError } from '../../../src/backends/lan/TxtEntryTooLongError.js';
import { workerRecords } from '../../../src/backends/lan/workerRecords.js';
import { workerInfo } from '../../../src/model/workerInfo.js';

interface Vectors {
  service_types: { namespace: string; service_type: string }[];
  metadata: {
    uid: string;
    address: string;
    pid: number;
    version: string;
    tags: string[];
    extra: Record<string, string>;
    secure: boolean;
    txt: Record<string, string | null>;
  }[];
}

const vectors = JSON.parse(
  readFileSync(new URL('../../fixtures/wool-vectors.json', import.meta.url), 'utf8'),
) as Vectors;

function udpSockets(): number {
  return process.getActiveResourcesInfo().filter((kind) => kind === 'UDPWrap').length;
}

describe('LAN wire format (wool vectors)', () => {
  it('service type: _wool- + 6 hex of MD5(namespace) + ._tcp.local.', () => {
    assert.ok(vectors.service_types.length >= 3);
    for (const { namespace, service_type } of vectors.service_types) {
      assert.equal(lanServiceType(namespace), service_type, namespace);
    }
    assert.throws(() => lanServiceType(5 as never), TypeError);
  });

  it("TXT strings of each vector worker are exactly wool's, and decode back to the worker", () => {
    for (const vector of vectors.metadata) {
      const { uid, address, pid, version, tags, extra, secure } = vector;
      const worker = workerInfo({ uid, address, pid, version, tags, extra, secure });
      const entries = encodeTxtEntries(worker).map((entry) => entry.toString('utf8'));
      const expected = Object.entries(vector.txt).map(([key, value]) => (value === null ? key : `${key}=${value}`));
      // Compare as sets of strings except extra (JSON key order may differ): decoded equality is checked below.
      const withoutExtra = (list: string[]): string[] => list.filter((entry) => !entry.startsWith('extra=')).sort();
      assert.deepEqual(withoutExtra(entries), withoutExtra(expected), vector.uid);
      const decoded = decodeTxt(decodeTxtEntries(encodeTxtEntries(worker)), {
        uid: vector.uid,
        address: vector.address,
      });
      const fromWool = decodeTxt(decodeTxtEntries(expected.map((entry) => Buffer.from(entry, 'utf8'))), {
        uid: vector.uid,
        address: vector.address,
      });
      for (const got of [decoded, fromWool]) {
        assert.equal(got.uid, vector.uid);
        assert.equal(got.address, vector.address);
        assert.equal(got.pid, vector.pid);
        assert.equal(got.version, vector.version);
        assert.deepEqual([...got.tags], [...vector.tags].sort());
        assert.deepEqual({ ...got.extra }, vector.extra);
        assert.equal(got.secure, vector.secure);
      }
    }
  });
});

describe('decodeTxtEntries', () => {
  it('splits at the first "=", keeps bare keys, skips empty and key-less strings, first key wins', () => {
    const txt = decodeTxtEntries([
      Buffer.from('pid=1'),
      Buffer.from('tags'),
      Buffer.from(''),
      Buffer.from('=x'),
      Buffer.from('PID=2'),
      Buffer.from('extra={"a": "b=c"}'),
    ]);
    assert.deepEqual(Object.keys(txt), ['pid', 'tags', 'extra']);
    assert.equal(Buffer.from(txt.pid as Uint8Array).toString(), '1');
    assert.equal(txt.tags, true);
    assert.equal(Buffer.from(txt.extra as Uint8Array).toString(), '{"a": "b=c"}');
    assert.deepEqual(Object.keys(decodeTxtEntries('version=1')), ['version']);
    assert.deepEqual(Object.keys(decodeTxtEntries(undefined)), []);
  });

  it('leaves bytes that are not UTF-8 to decodeTxt, which rejects them naming the key', () => {
    const txt = decodeTxtEntries([
      Buffer.from('pid=1'),
      Buffer.concat([Buffer.from('version='), Buffer.from([0xff, 0xfe])]),
    ]);
    assert.throws(
      () => decodeTxt(txt, { uid: '6f1d2b1c-4c0b-4e7e-9a56-0c2b9d1d7e11', address: '10.0.0.1:1' }),
      /version/,
    );
  });
});

describe('encodeTxtEntries', () => {
  const base = { uid: '6f1d2b1c-4c0b-4e7e-9a56-0c2b9d1d7e11', address: '10.0.0.1:1', pid: 1, version: '1' };
  it('accepts an entry of exactly 255 bytes and rejects 256 with TxtEntryTooLongError naming the key', () => {
    // version=<247 chars> is 255 bytes.
    assert.equal(encodeTxtEntries(workerInfo({ ...base, version: 'v'.repeat(247) }))[1]?.length, 255);
    assert.throws(
      () => encodeTxtEntries(workerInfo({ ...base, version: 'v'.repeat(248) })),
      (error: unknown) =>
        error instanceof TxtEntryTooLongError &&
        error.key === 'version' &&
        error.bytes === 256 &&
        error.code === 'WOOLRX_LAN_TXT_TOO_LONG',
    );
    assert.throws(
      () => encodeTxtEntries(workerInfo({ ...base, extra: { note: 'é'.repeat(200) } })),
      (error: unknown) =>
        error instanceof TxtEntryTooLongError && error.key === 'extra' && /"extra"/.test(error.message),
    );
  });
});

describe('workerRecords', () => {
  it('advertises PTR, SRV, TXT, A and AAAA; the unique records flush caches; a goodbye is TTL 0', () => {
    const advert = {
      serviceType: '_wool-ad3e53._tcp.local',
      uid: '6f1d2b1c-4c0b-4e7e-9a56-0c2b9d1d7e11',
      port: 50051,
      ipv4: ['10.0.0.1'],
      ipv6: ['fd00::1'],
      txt: [Buffer.from('pid=1')],
    };
    const records = workerRecords(advert);
    assert.deepEqual(
      records.map((r) => r.type),
      ['PTR', 'SRV', 'TXT', 'A', 'AAAA'],
    );
    const [ptr, srv, txt, a, aaaa] = records;
    assert.equal(ptr?.type === 'PTR' ? ptr.data : undefined, `${advert.uid}._wool-ad3e53._tcp.local`);
    assert.equal(ptr && 'flush' in ptr ? ptr.flush : undefined, undefined, 'PTR is a shared record');
    assert.deepEqual(srv?.type === 'SRV' ? srv.data : undefined, {
      port: 50051,
      target: `${advert.uid}.local`,
      priority: 0,
      weight: 0,
    });
    for (const record of [srv, txt, a, aaaa])
      assert.equal(record && 'flush' in record ? record.flush : undefined, true);
    assert.equal(a?.name, `${advert.uid}.local`);
    assert.ok(records.every((r) => 'ttl' in r && (r.ttl ?? 0) > 0));
    assert.ok(workerRecords(advert, true).every((r) => 'ttl' in r && r.ttl === 0));
  });
});

describe('host classification', () => {
  it('isWildcardHost', () => {
    for (const host of ['0.0.0.0', '::', '[::]', '0:0:0:0:0:0:0:0', '']) assert.equal(isWildcardHost(host), true, host);
    for (const host of ['127.0.0.1', '::1', '10.0.0.1', 'example.local', 'fd00::'])
      assert.equal(isWildcardHost(host), false, host);
  });
  it('isLoopbackHost', () => {
    for (const host of [
      '127.0.0.1',
      '127.9.9.9',
      '::1',
      '[::1]',
      '0:0:0:0:0:0:0:1',
      '::ffff:127.0.0.1',
      'localhost',
      'LOCALHOST',
    ]) {
      assert.equal(isLoopbackHost(host), true, host);
    }
    for (const host of ['10.0.0.1', '::', 'fe80::1', '::ffff:10.0.0.1', 'example.local', '128.0.0.1'])
      assert.equal(isLoopbackHost(host), false, host);
  });
});

describe('lanDiscovery options', () => {
  it('rejects a wildcard advertiseHost at construction with a TypeError', () => {
    for (const advertiseHost of ['0.0.0.0', '::', '[::]', '']) {
      assert.throws(
        () => lanDiscovery('ns', { advertiseHost }),
        (error: unknown) => error instanceof TypeError && /advertiseHost/.test(error.message),
        advertiseHost,
      );
    }
    assert.throws(() => lanDiscovery('ns', { advertiseHost: 42 as never }), TypeError);
  });

  it('rejects bad namespaces and options with a TypeError naming them, in one grammar', () => {
    const rejects = (options: object, message: RegExp): void => {
      assert.throws(
        () => lanDiscovery('ns', options),
        (error: unknown) => error instanceof TypeError && message.test(error.message),
        message.source,
      );
    };
    assert.throws(() => lanDiscovery(''), /^TypeError: lanDiscovery: namespace must be a non-empty string, got ""$/);
    rejects(
      { expireAfter: 0 },
      /^lanDiscovery: option expireAfter must be a number above 0 and at most 2147483647, got 0$/,
    );
    rejects(
      { expireAfter: Infinity },
      /^lanDiscovery: option expireAfter must be a number above 0 and at most 2147483647, got Infinity$/,
    );
    rejects(
      { requeryInterval: -1 },
      /^lanDiscovery: option requeryInterval must be a number above 0 and at most 2147483647, got -1$/,
    );
    rejects(
      { expireAfter: 1000, requeryInterval: 1000 },
      /^lanDiscovery: option requeryInterval must be below expireAfter \(1000 ms\), or live workers would expire between queries, got 1000$/,
    );
    rejects(
      { syncWindow: 0 },
      /^lanDiscovery: option syncWindow must be a number above 0 and at most 2147483647, got 0$/,
    );
    rejects(
      { syncWindow: '1s' },
      /^lanDiscovery: option syncWindow must be a number above 0 and at most 2147483647, got "1s"$/,
    );
    rejects({ probe: 'yes' }, /^lanDiscovery: option probe must be a boolean, got "yes"$/);
    rejects(
      { unknownUpdate: 'ignore' },
      /^lanDiscovery: option unknownUpdate must be one of 'reject', 'register', got "ignore"$/,
    );
    rejects({ port: 70000 }, /^lanDiscovery: option port must be an integer from 1 to 65535, got 70000$/);
    rejects({ interface: '' }, /^lanDiscovery: option interface must be an IPv4 address, got ""$/);
    rejects({ advertiseHost: 42 }, /^lanDiscovery: option advertiseHost must be a string or a function, got 42$/);
    rejects(
      { advertiseHost: '0.0.0.0' },
      /^lanDiscovery: option advertiseHost must be the address peers should connect to, not a wildcard, got "0.0.0.0"$/,
    );
    rejects(
      { expireAfer: 1000 },
      /^lanDiscovery: unknown option "expireAfer" \(known: advertiseHost, probe, requeryInterval, expireAfter, syncWindow, interface, port, unknownUpdate, signingKey\)$/,
    );
    rejects({ ttl: 1, scope: 'x' }, /^lanDiscovery: unknown options "ttl", "scope" /);
    assert.throws(
      () => lanDiscovery('ns', null as never),
      /^TypeError: lanDiscovery: options must be an object, got null$/,
    );
    assert.throws(() => lanDiscovery('ns').events(5 as never), /filter/);
  });

  it('accepts every documented option', () => {
    const discovery = lanDiscovery('ns', {
      advertiseHost: () => '10.0.0.1',
      probe: false,
      requeryInterval: 500,
      expireAfter: 2000,
      syncWindow: 250,
      interface: '127.0.0.1',
      port: 5353,
      unknownUpdate: 'register',
    });
    assert.equal(discovery.namespace, 'ns');
  });

  it('opens no socket until something subscribes or publishes', async () => {
    const before = udpSockets();
    const discovery = lanDiscovery('wire-test', { expireAfter: 3000 });
    assert.equal(discovery.namespace, 'wire-test');
    discovery.events();
    discovery.events(() => true);
    const publisher = discovery.publisher();
    assert.equal(udpSockets(), before);
    // Rejected before any socket opens.
    await assert.rejects(publisher.publish('worker-renamed' as never, null as never), TypeError);
    assert.equal(udpSockets(), before);
    await publisher.close();
    assert.equal(publisher.closed, true);
    assert.equal(udpSockets(), before);
  });
});
