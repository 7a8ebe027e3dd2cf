// Hostile input (local backend). Each attack is
// followed by a check that the subscriber holds the truth, and that what it
// met was reported on `diagnostics`, rate-limited.
import assert from 'node:assert/strict';
import { closeSync, fstatSync, ftruncateSync, openSync, readFileSync, readSync, writeSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { after, describe, it, mock } from 'node:test';
import { localDiscovery } from '../../../src/backends/local/index.js';
import { localNames } from '../../../src/backends/local/names/localNames.js';
import { TRANSIENT_GRACE } from '../../../src/backends/local/LocalWatch.js';
import { SlotMirror } from '../../../src/backends/local/segment/SlotMirror.js';
import { touchNotify } from '../../../src/backends/local/notify/notify.js';
import { uidBytes } from '../../../src/backends/local/segment/slotTable.js';
import { encodeWorker } from '../../../src/codec/encodeWorker.js';
import { workerInfo } from '../../../src/model/workerInfo.js';
import { assertClean, makeWorker, Recorder, strayTestFiles, TMP, uniqueNamespace, waitFor } from './helpers.js';

const POLL = 100;
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

after(() => {
  assert.deepEqual(strayTestFiles(), [], 'nothing of these tests left in /dev/shm or the temp directory');
});

/** Journal layout (see src/backends/local/journal/Journal.ts): 64-byte header, then records. */
const JOURNAL_HEADER = 64;

function readJournalHeader(fd: number): { recordSize: number; count: number; head: number } {
  const header = Buffer.alloc(JOURNAL_HEADER);
  readSync(fd, header, 0, JOURNAL_HEADER, 0);
  return {
    recordSize: header.readUInt32LE(4),
    count: header.readUInt32LE(8),
    head: Number(header.readBigUInt64LE(16)),
  };
}

/**
 * A namespace with one worker published and a subscriber recording it, and
 * the namespace's journal open for writing (to forge or damage it).
 */
async function journalScene(label: string) {
  const namespace = uniqueNamespace(label);
  const names = localNames(namespace, TMP);
  const discovery = localDiscovery(namespace, { pollInterval: POLL, capacity: 8, liveness: false });
  const publisher = discovery.publisher();
  const a = makeWorker();
  await publisher.publish('worker-added', a);
  const recorder = new Recorder(discovery.events(), discovery.diagnostics);
  const journal = openSync(names.journalPath, 'r+');
  return { namespace, names, publisher, a, recorder, journal };
}

/** Appends a record to the journal as a publisher would, without touching the segment. */
function forgeRecord(fd: number, type: number, uid: string, slot: number, payload: Uint8Array | undefined): void {
  const { recordSize, count, head } = readJournalHeader(fd);
  const record = Buffer.alloc(40 + (payload?.length ?? 0));
  record.writeBigUInt64LE(BigInt(head), 0);
  record.writeUInt8(type, 8);
  record.writeUInt32LE(payload?.length ?? 0, 12);
  uidBytes(uid).copy(record, 16);
  record.writeUInt32LE(slot, 32);
  if (payload !== undefined) record.set(payload, 40);
  writeSync(fd, record, 0, record.length, JOURNAL_HEADER + (head % count) * recordSize);
  const next = Buffer.alloc(8);
  next.writeBigUInt64LE(BigInt(head + 1));
  writeSync(fd, next, 0, 8, 16);
}

describe('local backend: hostile input', () => {
  it(
    'a forged journal record naming a worker in no slot: never emitted, reported, the stream goes on',
    { timeout: 30_000 },
    async () => {
      const { namespace, names, publisher, a, recorder, journal } = await journalScene('forged');
      assert.equal(recorder.workers.size, 1);

      // Two forged adds (one into a free slot, one into a slot that does not
      // exist) and a forged drop of a worker that is registered.
      const ghost = makeWorker();
      const ghost2 = makeWorker();
      forgeRecord(journal, 1, ghost.uid, 5, encodeWorker(ghost));
      touchNotify(names);
      forgeRecord(journal, 1, ghost2.uid, 1_000_000, encodeWorker(ghost2));
      touchNotify(names);
      forgeRecord(journal, 3, a.uid, 0, undefined);
      touchNotify(names);
      await sleep(POLL * 4);
      assert.deepEqual(recorder.of('worker-added', ghost.uid), [], 'the forged worker is never emitted');
      assert.deepEqual(recorder.of('worker-dropped', ghost.uid), []);
      assert.deepEqual(recorder.of('worker-added', ghost2.uid), []);
      assert.deepEqual(
        recorder.of('worker-dropped', a.uid),
        [],
        'a worker its slot holds is not dropped by a forged record',
      );
      assert.deepEqual([...recorder.workers.keys()], [a.uid]);
      const forged = recorder.diagnostics.filter((d) =>
        /journal record .* does not match the segment/i.test(d.message),
      );
      assert.ok(forged.length >= 1, `the forged records are reported: ${JSON.stringify(recorder.diagnostics)}`);
      assert.ok(forged.length <= 3, 'reports are rate-limited');

      // The stream goes on: a real add and drop after the forgery.
      const b = makeWorker();
      await publisher.publish('worker-added', b);
      await waitFor(() => recorder.workers.has(b.uid), 'a real worker after the forgery');
      await publisher.publish('worker-dropped', b);
      await waitFor(() => !recorder.workers.has(b.uid), 'a real drop after the forgery');
      assert.equal(recorder.error, undefined);
      closeSync(journal);
      recorder.stop();
      await publisher.close();
      await assertClean(namespace, [a.uid, b.uid]);
    },
  );

  it(
    'journal corruption (record count 0, record size 0xFFFFFF00, head 2^52): each reported once, the subscriber falls back to the segment',
    { timeout: 30_000 },
    async () => {
      const { namespace, publisher, a, recorder, journal } = await journalScene('journal');
      const original = Buffer.alloc(JOURNAL_HEADER);
      readSync(journal, original, 0, JOURNAL_HEADER, 0);
      const reports = (pattern: RegExp) => recorder.diagnostics.filter((d) => pattern.test(d.message));
      const uids = [a.uid];
      const attack = async (what: string, damage: () => void, pattern: RegExp) => {
        damage();
        // The stream goes on: a publish during the attack is seen (from the segment).
        const w = makeWorker();
        uids.push(w.uid);
        await publisher.publish('worker-added', w);
        await waitFor(() => recorder.workers.has(w.uid), `a worker published while ${what}`);
        await waitFor(
          () => reports(pattern).length > 0,
          `a report of ${what}: ${JSON.stringify(recorder.diagnostics.map((d) => d.message))}`,
          5_000,
        );
        await sleep(POLL * 5);
        assert.equal(reports(pattern).length, 1, `${what}: reported once (rate-limited)`);
        // Repaired: the journal is followed again, a drop is seen.
        writeSync(journal, original, 0, 16, 0);
        await publisher.publish('worker-dropped', w);
        await waitFor(() => !recorder.workers.has(w.uid), `a drop after ${what} was repaired`);
        readSync(journal, original, 0, JOURNAL_HEADER, 0);
      };
      const header = (offset: number, bytes: Buffer) => () => writeSync(journal, bytes, 0, bytes.length, offset);
      const u32 = (value: number) => {
        const b = Buffer.alloc(4);
        b.writeUInt32LE(value);
        return b;
      };
      const u64 = (value: bigint) => {
        const b = Buffer.alloc(8);
        b.writeBigUInt64LE(value);
        return b;
      };
      await attack(
        'a record count of 0',
        header(8, u32(0)),
        /Journal .* is not used: its header claims a record count of 0/,
      );
      await attack(
        'a record size of 0xFFFFFF00',
        header(4, u32(0xffffff00)),
        /Journal .* is not used: its header claims a record size of 4294967040 bytes/,
      );
      await attack(
        'a head of 2^52',
        header(16, u64(2n ** 52n)),
        /Journal .* has a corrupt head: it claims 45035996273704\d\d records written/,
      );
      assert.deepEqual([...recorder.workers.keys()], [a.uid]);
      assert.equal(recorder.error, undefined);
      closeSync(journal);
      recorder.stop();
      await publisher.close();
      await assertClean(namespace, uids);
    },
  );

  it(
    'a journal without its WRX2 magic: for an instant (as while its creator writes the header) not reported, however often it is met; lasting, reported once after TRANSIENT_GRACE',
    { timeout: 30_000 },
    async () => {
      const { namespace, publisher, a, recorder, journal } = await journalScene('nomagic');
      const magic = Buffer.alloc(4);
      readSync(journal, magic, 0, 4, 0);
      const uids = [a.uid];
      const noMagic = () => recorder.diagnostics.filter((d) => /no WRX2 magic/.test(d.message));
      try {
        // An instant, met many times: every publish wakes the subscriber, which meets it again.
        const damagedAt = performance.now();
        writeSync(journal, Buffer.alloc(4), 0, 4, 0);
        for (let i = 0; i < 4; i += 1) {
          const w = makeWorker();
          uids.push(w.uid);
          await publisher.publish('worker-added', w);
          await waitFor(() => recorder.workers.has(w.uid), `worker ${i} published while the magic is missing`);
        }
        writeSync(journal, magic, 0, 4, 0);
        const lasted = performance.now() - damagedAt;
        assert.ok(lasted < TRANSIENT_GRACE, `the test's premise: the instant lasted ${lasted.toFixed(0)} ms`);
        await sleep(TRANSIENT_GRACE + POLL * 3);
        assert.deepEqual(noMagic(), [], 'a journal without its magic for an instant is not reported');

        // Once followed again, a later instant does not add to the earlier one's sightings.
        writeSync(journal, Buffer.alloc(4), 0, 4, 0);
        const b = makeWorker();
        uids.push(b.uid);
        await publisher.publish('worker-added', b);
        await waitFor(() => recorder.workers.has(b.uid), 'a worker published during a second instant');
        writeSync(journal, magic, 0, 4, 0);
        await sleep(POLL * 3);
        assert.deepEqual(noMagic(), [], 'two instants apart are not one lasting problem');

        // Lasting: reported once, and the stream goes on.
        writeSync(journal, Buffer.alloc(4), 0, 4, 0);
        const c = makeWorker();
        uids.push(c.uid);
        await publisher.publish('worker-added', c);
        await waitFor(() => noMagic().length > 0, 'a report of a journal without its magic for good', 10_000);
        await sleep(POLL * 5);
        assert.equal(noMagic().length, 1, 'reported once (rate-limited)');
        assert.ok(recorder.workers.has(c.uid));
        writeSync(journal, magic, 0, 4, 0);
        await publisher.publish('worker-dropped', c);
        await waitFor(() => !recorder.workers.has(c.uid), 'a drop once the magic is back');
        assert.equal(recorder.error, undefined);
      } finally {
        closeSync(journal);
        recorder.stop();
        await publisher.close();
      }
      await assertClean(namespace, uids);
    },
  );

  for (const claimed of [2 ** 26, 2 ** 28 + 1]) {
    it(
      `a segment header claiming ${claimed} slots (grown sparse): reported, the workers kept meanwhile, and once reverted the subscriber converges within its poll interval`,
      { timeout: 30_000 },
      async () => {
        const namespace = uniqueNamespace('capacity');
        const names = localNames(namespace, TMP);
        const discovery = localDiscovery(namespace, { pollInterval: POLL, capacity: 8, liveness: false });
        const publisher = discovery.publisher();
        const [a, b] = [makeWorker(), makeWorker()];
        await publisher.publish('worker-added', a);
        await publisher.publish('worker-added', b);
        const recorder = new Recorder(discovery.events(), discovery.diagnostics);
        assert.equal(recorder.workers.size, 2);
        const segment = openSync(names.segmentPath, 'r+');
        const header = Buffer.alloc(16);
        readSync(segment, header, 0, 16, 0);
        const size = fstatSync(segment).size;
        const huge = Buffer.from(header);
        const late = discovery.publisher();
        huge.writeUInt32LE(claimed >>> 0, 4);
        try {
          writeSync(segment, huge, 0, 16, 0);
          ftruncateSync(segment, Math.min(16 + 16 * claimed, 4 * 2 ** 30));
          touchNotify(names);
          await waitFor(
            () =>
              recorder.diagnostics.some((d) =>
                /claims a capacity of \d+ slots, more than .*; the workers last read from it are kept/.test(d.message),
              ),
            'the report of the huge capacity',
          );
          // A publisher that opens the segment during the attack is refused, nothing written.
          await assert.rejects(late.publish('worker-updated', workerInfo({ ...a, version: '2' })), {
            code: 'WOOLRX_SEGMENT_TOO_LARGE',
          });
          // Damage is not a change: the last good view is kept. A
          // drop made meanwhile (by a publisher that read the header before)
          // is seen once the segment can be read again.
          await publisher.publish('worker-dropped', b);
          await sleep(POLL * 3);
          assert.deepEqual(
            recorder.events.filter((e) => e.type === 'worker-dropped'),
            [],
            'nothing dropped while the segment cannot be read',
          );
          assert.equal(recorder.workers.size, 2);
        } finally {
          writeSync(segment, header, 0, 16, 0);
          ftruncateSync(segment, size);
          closeSync(segment);
        }
        // Reverted (no notification): the truth within the poll interval.
        const reverted = performance.now();
        await waitFor(
          () => recorder.workers.size === 1 && recorder.workers.has(a.uid),
          'the drop seen after the attack is reverted',
          10_000,
        );
        const took = performance.now() - reverted;
        assert.ok(took < POLL * 3, `converged in ${took.toFixed(0)} ms (poll interval ${POLL} ms)`);
        await late.close();
        // And a publish goes through again, and is seen.
        await publisher.publish('worker-updated', workerInfo({ ...a, version: '3' }));
        await waitFor(() => recorder.workers.get(a.uid)?.version === '3', 'an update after the attack');
        assert.equal(recorder.error, undefined);
        recorder.stop();
        await publisher.close();
        await assertClean(namespace, [a.uid, b.uid]);
      },
    );
  }

  it(
    'publishing a worker whose pid is not a live process on this host warns at publish time',
    { timeout: 30_000 },
    async () => {
      const namespace = uniqueNamespace('deadpid');
      const discovery = localDiscovery(namespace, { pollInterval: false });
      const diagnostics: { kind: string; message: string; uid?: string }[] = [];
      const subscription = discovery.diagnostics.subscribe((d) => diagnostics.push(d));
      const publisher = discovery.publisher();
      // Above the kernel's pid_max: never a live process.
      const dead = Number(readFileSync('/proc/sys/kernel/pid_max', 'utf8')) + 1;
      const ghost = makeWorker({ pid: dead });
      const alive = makeWorker();
      await publisher.publish('worker-added', alive);
      await publisher.publish('worker-added', ghost);
      await publisher.publish('worker-updated', workerInfo({ ...ghost, version: '2' }));
      const warnings = diagnostics.filter(
        (d) => d.kind === 'warning' && /not a live process on this host/.test(d.message),
      );
      assert.equal(warnings.length, 1, `one warning: ${JSON.stringify(diagnostics)}`);
      assert.equal(warnings[0]?.uid, ghost.uid);
      assert.match(warnings[0]?.message ?? '', new RegExp(`pid ${dead}\\b`));
      subscription.unsubscribe();
      await publisher.close();
      await assertClean(namespace, [ghost.uid, alive.uid]);
    },
  );

  it(
    'a notification flood (notify touched in a loop by another process): reads of the namespace coalesced to a few a second, publishes still seen',
    { timeout: 30_000 },
    async () => {
      const namespace = uniqueNamespace('flood');
      const names = localNames(namespace, TMP);
      const discovery = localDiscovery(namespace, { pollInterval: 1000, capacity: 8, liveness: false });
      const publisher = discovery.publisher();
      const a = makeWorker();
      await publisher.publish('worker-added', a);
      const reads = mock.method(SlotMirror.prototype, 'read');
      const recorder = new Recorder(discovery.events(), discovery.diagnostics);
      const FLOOD = 1500;
      const script = `const fs = require('node:fs'); const end = Date.now() + ${FLOOD}; let n = 0; while (Date.now() < end) { fs.writeFileSync(${JSON.stringify(names.notifyPath)}, 'x' + n++); }`;
      const flooder = spawn(process.execPath, ['-e', script], { stdio: 'ignore' });
      const exited = new Promise((resolve) => flooder.once('exit', resolve));
      try {
        await sleep(300);
        reads.mock.resetCalls();
        const b = makeWorker();
        await publisher.publish('worker-added', b);
        await waitFor(() => recorder.workers.has(b.uid), 'a publish during the flood', 2_000);
        await exited;
        const count = reads.mock.callCount();
        const perSecond = count / ((FLOOD - 300) / 1000);
        // One per gap (100 ms at a 1 s poll), the poll ticks, the publish: ~15 a second (~500 without coalescing).
        assert.ok(
          perSecond <= 25,
          `${count} reads of the namespace in ${FLOOD - 300} ms of flood (${perSecond.toFixed(1)}/s)`,
        );
        await publisher.publish('worker-dropped', b);
        await waitFor(() => !recorder.workers.has(b.uid), 'a drop after the flood');
      } finally {
        reads.mock.restore();
        flooder.kill('SIGKILL');
      }
      assert.equal(recorder.error, undefined);
      recorder.stop();
      await publisher.close();
      await assertClean(namespace, [a.uid]);
    },
  );
});
