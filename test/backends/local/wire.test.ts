// Wire compatibility: names, segment and block bytes against wool's golden
// vectors; modes; option and namespace validation.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import { readRegistrantMark, blockName } from '../../../src/backends/local/block/blockFile.js';
import { localDiscovery } from '../../../src/backends/local/index.js';
import { shortHash } from '../../../src/backends/local/names/shortHash.js';
import { uidBytes } from '../../../src/backends/local/segment/slotTable.js';
import { workerInfo } from '../../../src/model/workerInfo.js';
import { assertClean, makeWorker, TMP, uniqueNamespace, strayTestFiles } from './helpers.js';

interface Vectors {
  names: (
    | { input: string; short_hash: string }
    | { input_uuid: string; hex: string; block_name: string; slot_bytes_hex: string }
  )[];
  metadata: {
    uid: string;
    address: string;
    pid: number;
    version: string;
    tags: string[];
    extra: Record<string, string>;
    secure: boolean;
    protobuf_hex: string;
  }[];
  segment_example: { capacity: number; hex: string };
  block_example: { block_size: number; hex: string };
}

const vectors = JSON.parse(
  readFileSync(new URL('../../fixtures/wool-vectors.json', import.meta.url), 'utf8'),
) as Vectors;
const used: { namespace: string; uids: string[] }[] = [];

after(async () => {
  for (const { namespace, uids } of used) await assertClean(namespace, uids);
  assert.deepEqual(strayTestFiles(), [], 'nothing of these tests left in /dev/shm or the temp directory');
});

describe('local backend: names', () => {
  it('short_hash matches every vector', () => {
    let checked = 0;
    for (const entry of vectors.names) {
      if ('input' in entry) {
        assert.equal(shortHash(entry.input), entry.short_hash, `short_hash(${JSON.stringify(entry.input)})`);
        checked += 1;
      }
    }
    assert.ok(checked >= 4);
  });

  it('short_hash matches every vector on a runtime without the one-shot crypto.hash (createHash), and loads there', () => {
    const inputs = vectors.names.flatMap((entry) => ('input' in entry ? [entry.input] : []));
    const script =
      `const { shortHash } = await import(${JSON.stringify(new URL('../../../src/backends/local/names/shortHash.ts', import.meta.url).href)});` +
      `const crypto = await import('node:crypto');` +
      `const bytes = ${JSON.stringify(inputs)}.map((input) => shortHash(new TextEncoder().encode(input)));` +
      `process.stdout.write(JSON.stringify({ hash: typeof crypto.hash, out: ${JSON.stringify(inputs)}.map(shortHash), bytes }));`;
    const child = spawnSync(
      process.execPath,
      [
        '--require',
        fileURLToPath(new URL('../../fixtures/withoutCryptoHash.cjs', import.meta.url)),
        '--import',
        'tsx',
        '--input-type=module',
        '--eval',
        script,
      ],
      { encoding: 'utf8', timeout: 60_000 },
    );
    assert.equal(child.status, 0, child.stderr);
    const { hash, out, bytes } = JSON.parse(child.stdout) as { hash: string; out: string[]; bytes: string[] };
    assert.equal(hash, 'undefined', 'the preload took crypto.hash away');
    const expected = vectors.names.flatMap((entry) => ('input' in entry ? [entry.short_hash] : []));
    assert.deepEqual(out, expected);
    assert.deepEqual(bytes, expected, 'hashed from UTF-8 bytes');
  });

  it('block names and slot bytes match every vector', () => {
    let checked = 0;
    for (const entry of vectors.names) {
      if ('input_uuid' in entry) {
        assert.equal(blockName(entry.input_uuid), entry.block_name);
        assert.equal(blockName(entry.hex), entry.block_name);
        assert.equal(uidBytes(entry.input_uuid).toString('hex'), entry.slot_bytes_hex);
        checked += 1;
      }
    }
    assert.ok(checked >= 2);
  });

  it("block names are short_hash of the uid's 32 lowercase digits, whatever its case or spelling", () => {
    const reference = (uid: string): string => shortHash(uid.replaceAll('-', '').toLowerCase());
    const uids: string[] = [];
    for (let i = 0; i < 200; i += 1) {
      const uid = randomUUID();
      uids.push(uid, uid.toUpperCase(), uid.replaceAll('-', ''), uid.replaceAll('-', '').toUpperCase());
    }
    // Not UUIDs: still named as the reference names them (31 and 33 digits, non-ASCII, empty).
    uids.push('a'.repeat(31), 'B'.repeat(33), `${'c'.repeat(31)}é`, `ÄÖ${'d'.repeat(30)}`, '', '--');
    for (const uid of uids) assert.equal(blockName(uid), reference(uid), JSON.stringify(uid));
  });
});

describe('local backend: bytes in shared memory', () => {
  const wool = vectors.metadata[0];
  assert.ok(wool);
  const worker = workerInfo({ uid: wool.uid, address: wool.address, pid: process.pid, version: wool.version });

  it('writes the segment of segment_example byte for byte (header, free slot 0, worker in slot 1), mode 0600', async () => {
    const namespace = uniqueNamespace('segment');
    const other = makeWorker();
    used.push({ namespace, uids: [other.uid, worker.uid] });
    const discovery = localDiscovery(namespace, { capacity: vectors.segment_example.capacity, pollInterval: false });
    const publisher = discovery.publisher();
    await publisher.publish('worker-added', other); // takes slot 0
    await publisher.publish('worker-added', worker); // takes slot 1
    await publisher.publish('worker-dropped', other); // frees slot 0
    const path = join('/dev/shm', shortHash(namespace));
    assert.equal(readFileSync(path).toString('hex'), vectors.segment_example.hex);
    assert.equal(statSync(path).mode & 0o777, 0o600);
    const block = join('/dev/shm', blockName(worker.uid));
    assert.equal(statSync(block).mode & 0o777, 0o600);
    assert.equal(statSync(block).size, 1024);
    await publisher.close();
  });

  it('writes the block of block_example byte for byte (u32 LE length, protobuf, zeros), then the registrant mark in the last 16 bytes', async () => {
    const namespace = uniqueNamespace('block');
    used.push({ namespace, uids: [wool.uid] });
    const exact = workerInfo({ uid: wool.uid, address: wool.address, pid: wool.pid, version: wool.version });
    // pid 4242 may not exist here: the subscriber-side liveness is not involved (no subscriber).
    const discovery = localDiscovery(namespace, { blockSize: vectors.block_example.block_size, pollInterval: false });
    const publisher = discovery.publisher();
    await publisher.publish('worker-added', exact);
    const bytes = readFileSync(join('/dev/shm', blockName(wool.uid)));
    const golden = Buffer.from(vectors.block_example.hex, 'hex');
    assert.equal(bytes.length, golden.length);
    // What wool reads — the record and the bytes up to the mark — is wool's block.
    assert.equal(bytes.subarray(0, -16).toString('hex'), golden.subarray(0, -16).toString('hex'));
    assert.equal(bytes.subarray(4, 4 + bytes.readUInt32LE(0)).toString('hex'), wool.protobuf_hex);
    // In wool's block those are zeros; woolrx's mark: 'WRXR', the pid, its complement, zeros.
    assert.equal(golden.subarray(-16).toString('hex'), '00'.repeat(16));
    const mark = Buffer.alloc(16);
    mark.write('WRXR', 0, 'latin1');
    mark.writeUInt32LE(wool.pid, 4);
    mark.writeUInt32LE(~wool.pid >>> 0, 8);
    assert.equal(bytes.subarray(-16).toString('hex'), mark.toString('hex'));
    assert.equal(readRegistrantMark(bytes, 4 + bytes.readUInt32LE(0), bytes.length), wool.pid);
    assert.equal(readRegistrantMark(golden, 4 + golden.readUInt32LE(0), golden.length), 0, "wool's block has none");
    await publisher.close();
  });

  it("leaves no mark when the record leaves less than 16 bytes: blockSize stays whole, the block is wool's byte for byte", async () => {
    const namespace = uniqueNamespace('block');
    used.push({ namespace, uids: [wool.uid] });
    const exact = workerInfo({ uid: wool.uid, address: wool.address, pid: wool.pid, version: wool.version });
    const size = 4 + wool.protobuf_hex.length / 2;
    for (const blockSize of [size, size + 15]) {
      const publisher = localDiscovery(namespace, { blockSize, pollInterval: false }).publisher();
      await publisher.publish('worker-added', exact);
      const bytes: Buffer = readFileSync(join('/dev/shm', blockName(wool.uid)));
      assert.equal(bytes.length, blockSize);
      assert.equal(bytes.subarray(4, size).toString('hex'), wool.protobuf_hex);
      assert.equal(bytes.subarray(size).toString('hex'), '00'.repeat(blockSize - size));
      assert.equal(readRegistrantMark(bytes, size, bytes.length), 0);
      await publisher.close();
    }
  });

  it('notifies through <realpath(tmpdir)>/wool-<namespace>/notify', async () => {
    const namespace = uniqueNamespace('notify');
    const w = makeWorker();
    used.push({ namespace, uids: [w.uid] });
    const publisher = localDiscovery(namespace, { pollInterval: false }).publisher();
    await publisher.publish('worker-added', w);
    const notify = join(TMP, `wool-${namespace}`, 'notify');
    const before = statSync(notify).mtimeMs;
    assert.equal(statSync(join(TMP, `wool-${namespace}`)).mode & 0o777, 0o700);
    await new Promise((resolve) => setTimeout(resolve, 15));
    await publisher.publish('worker-updated', workerInfo({ ...w, version: '2' }));
    assert.ok(statSync(notify).mtimeMs > before, 'notify mtime moves on publish');
    await publisher.close();
  });
});

describe('local backend: validation', () => {
  it('rejects namespaces that would escape the temp directory, or are empty', () => {
    for (const bad of ['', 'a/b', '..', 'a..b', 'x\0y', '/etc']) {
      assert.throws(() => localDiscovery(bad), TypeError, JSON.stringify(bad));
    }
    assert.throws(() => localDiscovery(42 as unknown as string), TypeError);
  });

  it('rejects bad options, naming them', () => {
    const bad = (option: string, expected: string, value: string): RegExp =>
      new RegExp(`^localDiscovery: option ${option} must be ${expected}, got ${value}$`);
    const check = (options: Parameters<typeof localDiscovery>[1], message: RegExp): void =>
      assert.throws(
        () => localDiscovery('ok', options),
        (error: unknown) => {
          assert.ok(error instanceof TypeError);
          assert.match(error.message, message);
          return true;
        },
      );
    check({ capacity: 0 }, bad('capacity', 'an integer from 1 to 16777216', '0'));
    check({ capacity: 1.5 }, bad('capacity', 'an integer from 1 to 16777216', '1\\.5'));
    check({ blockSize: 4 }, bad('blockSize', 'an integer from 16 to 16777216', '4'));
    check(
      { lockTimeout: -1 },
      bad('lockTimeout', 'an integer from 0 to 2147483647, or Infinity \\(wait without bound\\)', '-1'),
    );
    check({ pollInterval: -5 }, bad('pollInterval', 'false or an integer from 0 to 2147483647', '-5'));
    check({ pollInterval: true } as never, bad('pollInterval', 'false or an integer from 0 to 2147483647', 'true'));
    check({ liveness: 'yes' } as never, bad('liveness', 'a boolean', '"yes"'));
    check({ tmpdir: '' }, bad('tmpdir', 'a directory path', '""'));
    // A misspelt option is rejected, never silently ignored.
    check(
      { capacty: 4 } as never,
      /^localDiscovery: unknown option "capacty" \(known: capacity, blockSize, lockTimeout, pollInterval, liveness, tmpdir\)$/,
    );
    check(null as never, /^localDiscovery: options must be an object, got null$/);
  });

  it('accepts pollInterval false or 0 (no timer)', () => {
    assert.equal(localDiscovery('ok', { pollInterval: false }).namespace, 'ok');
    assert.equal(localDiscovery('ok', { pollInterval: 0 }).namespace, 'ok');
  });
});
