// BlockReader, WorkerBlocks and BlockSweep against synthetic blocks: real
// block files (u32 LE length + protobuf) in a private temp directory.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import fc from 'fast-check';
import { Subject } from 'rxjs';
import { encodeWorker } from '../../../src/codec/encodeWorker.js';
import { BlockReader, type BlockHandle, type BlockRead } from '../../../src/backends/local/block/BlockReader.js';
import { blockName } from '../../../src/backends/local/block/blockFile.js';
import { recordDigest, type RecordDigest } from '../../../src/backends/local/block/recordDigest.js';
import { BlockSweep, WorkerBlocks } from '../../../src/backends/local/block/WorkerBlocks.js';
import { Journal, JOURNAL_ADDED } from '../../../src/backends/local/journal/Journal.js';
import { JournalFollower } from '../../../src/backends/local/journal/JournalFollower.js';
import { uidBytes } from '../../../src/backends/local/segment/slotTable.js';
import type { DiscoveryDiagnostic } from '../../../src/discovery/types.js';
import { WorkerLedger } from '../../../src/events/WorkerLedger.js';
import type { DiscoveryEvent } from '../../../src/events/types.js';
import type { WorkerInfo } from '../../../src/model/types.js';
import { testWorker } from '../../../src/testing/testWorker.js';
import { makeWorker } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'woolrx-blocks-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** A block's record: u32 LE length, then the bytes. */
/** What a subscriber keeps of a record it took: its length and digest. */
function digestOf(record: Buffer): RecordDigest {
  const words = new Int32Array(4);
  recordDigest(record, record.length, words);
  return { taken: record.length, digestA: words[0] ?? 0, digestB: words[1] ?? 0 };
}

/** The record a read returned, or what it found instead. */
function recordIn(read: BlockRead): Buffer | string {
  return read.kind === 'record' ? read.record : read.kind;
}

function recordOf(payload: Uint8Array): Buffer {
  const record = Buffer.alloc(4 + payload.length);
  record.writeUInt32LE(payload.length, 0);
  record.set(payload, 4);
  return record;
}

/** Writes a worker's block (record, then zeros up to `size`) under `dir`. */
function writeBlockFile(uid: string, record: Buffer, size = 1024): string {
  const path = join(dir, blockName(uid));
  const block = Buffer.alloc(Math.max(size, record.length));
  record.copy(block);
  writeFileSync(path, block);
  return path;
}

const summary = (event: DiscoveryEvent): string => `${event.type} ${event.worker.version}`;

describe('BlockReader', () => {
  it('reads a record (length prefix included), learning the block size from the first read', () => {
    const reader = new BlockReader(dir);
    const w = makeWorker();
    const record = recordOf(encodeWorker(w));
    writeBlockFile(w.uid, record, 2048);
    const entry = BlockReader.handle(w.uid);
    const read = reader.read(entry);
    assert.equal(read.kind, 'record');
    assert.deepEqual(read.kind === 'record' && read.record, record);
    assert.equal(entry.size, 2048);
    assert.equal(reader.path(entry), join(dir, blockName(w.uid)));
    assert.equal(reader.openCount, 1);
    reader.close(entry);
    assert.equal(reader.openCount, 0);
  });

  it('tells missing, empty and impossible-length blocks apart', () => {
    const reader = new BlockReader(dir);
    assert.equal(reader.read(BlockReader.handle(randomUUID())).kind, 'missing');
    const empty = randomUUID();
    writeBlockFile(empty, Buffer.alloc(4));
    assert.equal(reader.read(BlockReader.handle(empty)).kind, 'empty');
    const tiny = randomUUID();
    writeFileSync(join(dir, blockName(tiny)), Buffer.from([1, 0]));
    assert.equal(reader.read(BlockReader.handle(tiny)).kind, 'empty');
    const long = randomUUID();
    const bad = Buffer.alloc(4);
    bad.writeUInt32LE(5000, 0);
    writeBlockFile(long, bad, 64);
    const entry = BlockReader.handle(long);
    const read = reader.read(entry);
    assert.equal(read.kind, 'bad-length');
    assert.deepEqual(read.kind === 'bad-length' && read.prefix, bad);
  });

  it('reads blocks larger than its scratch buffers', () => {
    const reader = new BlockReader(dir);
    const w = makeWorker({ extra: { big: 'x'.repeat(100_000) } });
    const record = recordOf(encodeWorker(w));
    writeBlockFile(w.uid, record, 150_000);
    const entry = BlockReader.handle(w.uid);
    assert.deepEqual(recordIn(reader.read(entry)), record);
    assert.equal(entry.size, 150_000);
    assert.deepEqual(recordIn(reader.read(entry)), record, 'a second read, size known');
    reader.close(entry);
  });

  it('unchanged(): one read says whether the bytes taken are still there; a re-created block is re-opened', () => {
    const reader = new BlockReader(dir);
    const w = makeWorker();
    const record = recordOf(encodeWorker(w));
    const path = writeBlockFile(w.uid, record);
    const entry = BlockReader.handle(w.uid);
    assert.equal(reader.unchanged(entry, undefined), false, 'nothing taken yet');
    const read = reader.read(entry);
    assert.equal(read.kind, 'record');
    const taken = read.kind === 'record' ? digestOf(read.record) : undefined;
    assert.equal(reader.unchanged(entry, taken), true);
    const fd = entry.fd;
    // Rewritten in place: one byte apart (the same length), then another length.
    writeBlockFile(w.uid, recordOf(encodeWorker({ ...w, version: '1.0.1' })));
    assert.equal(reader.unchanged(entry, taken), false, 'one byte changed');
    writeBlockFile(w.uid, recordOf(encodeWorker({ ...w, version: '2' })));
    assert.equal(reader.unchanged(entry, taken), false);
    assert.equal(entry.fd, fd, 'same file: descriptor kept');
    unlinkSync(path);
    writeBlockFile(w.uid, record); // dropped and re-created (a new file)
    assert.equal(reader.unchanged(entry, taken), false, 'the old file is gone: not unchanged');
    assert.equal(entry.fd, undefined, 'its descriptor closed');
    assert.equal(reader.openCount, 0);
    assert.deepEqual(recordIn(reader.read(entry)), record, 'the new file is opened by name');
    reader.close(entry);
  });

  it('unchanged(): a block never opened whose bytes are known is opened and compared, its descriptor kept', () => {
    const reader = new BlockReader(dir, 1);
    const w = makeWorker();
    const record = recordOf(encodeWorker(w));
    const path = writeBlockFile(w.uid, record);
    const entry = BlockReader.handle(w.uid);
    assert.equal(reader.unchanged(entry, digestOf(record)), true, 'the bytes a journal record gave');
    assert.notEqual(entry.fd, undefined, 'opened, and kept');
    assert.equal(entry.size, 1024, 'its size learnt at open');
    assert.equal(reader.openCount, 1);

    const other = makeWorker();
    const otherRecord = recordOf(encodeWorker(other));
    writeBlockFile(other.uid, otherRecord);
    const second = BlockReader.handle(other.uid);
    assert.equal(reader.unchanged(second, digestOf(otherRecord)), false, 'no descriptor to spare: left to a full read');
    assert.equal(second.fd, undefined);
    assert.equal(second.size, 0, 'not opened at all');

    const stale = makeWorker();
    writeBlockFile(stale.uid, recordOf(encodeWorker({ ...stale, version: '2' })));
    const third = BlockReader.handle(stale.uid);
    reader.close(entry);
    assert.equal(
      reader.unchanged(third, digestOf(recordOf(encodeWorker(stale)))),
      false,
      'the block holds newer bytes',
    );
    assert.notEqual(third.fd, undefined, 'opened all the same: the full read that follows reuses it');
    reader.close(third);

    const missing = BlockReader.handle(makeWorker().uid);
    assert.equal(reader.unchanged(missing, digestOf(record)), false, 'no block: the full read reports it');
    assert.equal(missing.fd, undefined);
    assert.equal(reader.openCount, 0);

    // Re-created since it was opened (a new registration): read whole, not opened and compared.
    assert.equal(reader.unchanged(entry, digestOf(record)), false, 'size known, descriptor closed: a full read is due');
    assert.equal(entry.fd, undefined);
    unlinkSync(path);
  });

  it('keeps at most maxOpen descriptors; beyond, blocks are opened per read', () => {
    const reader = new BlockReader(dir, 2);
    const entries: BlockHandle[] = [];
    for (let i = 0; i < 4; i += 1) {
      const w = makeWorker();
      const record = recordOf(encodeWorker(w));
      writeBlockFile(w.uid, record);
      const entry = BlockReader.handle(w.uid);
      entries.push(entry);
      assert.deepEqual(recordIn(reader.read(entry)), record);
    }
    assert.equal(reader.openCount, 2);
    assert.deepEqual(
      entries.map((entry) => entry.fd !== undefined),
      [true, true, false, false],
    );
    for (const entry of entries) reader.close(entry);
    assert.equal(reader.openCount, 0);
  });
});

describe('WorkerBlocks', () => {
  function setup() {
    const journalPath = join(dir, `journal-${randomUUID()}`);
    const journal = new JournalFollower(journalPath);
    const events: DiscoveryEvent[] = [];
    const diagnostics: DiscoveryDiagnostic[] = [];
    const subject = new Subject<DiscoveryDiagnostic>();
    subject.subscribe((d) => diagnostics.push(d));
    let scheduled = 0;
    const sink = { next: (event: DiscoveryEvent) => events.push(event), closed: false };
    const workers = new WorkerBlocks('ns', new BlockReader(dir), journal, () => (scheduled += 1), sink, subject);
    return { journal, journalPath, events, diagnostics, workers, sink, scheduled: () => scheduled };
  }

  it('decides added / updated / nothing / dropped by the ledger rule, decoding only changed bytes', () => {
    const { events, workers } = setup();
    const w = makeWorker({ version: '1' });
    const entry = workers.add(w.uid);
    workers.accept(entry, recordOf(encodeWorker(w)));
    workers.accept(entry, recordOf(encodeWorker(w))); // same bytes
    const w2: WorkerInfo = { ...w, version: '2' };
    workers.accept(entry, recordOf(encodeWorker(w2)));
    workers.drop(entry);
    assert.deepEqual(events.map(summary), ['worker-added 1', 'worker-updated 2', 'worker-dropped 2']);
    assert.equal(workers.get(w.uid), undefined);
    assert.equal(workers.told.size, 0);
    // A uid never reported: its drop is silent.
    const silent = workers.add(randomUUID());
    workers.drop(silent);
    assert.equal(events.length, 3);
  });

  it('what it tells is what a WorkerLedger tells, on any sequence of records and drops', () => {
    // Three versions per worker (two of them equal: the same bytes again).
    const versions = (n: number): WorkerInfo[] => [
      testWorker(n, { version: '1', tags: ['a'] }),
      testWorker(n, { version: '1', tags: ['a'] }),
      testWorker(n, { version: '2', tags: ['a', 'b'] }),
    ];
    const pool = [1, 2, 3, 4].map(versions);
    const op = fc.record({
      n: fc.integer({ min: 0, max: 3 }),
      kind: fc.constantFrom('put', 'put', 'found', 'drop'),
      version: fc.integer({ min: 0, max: 2 }),
    });
    fc.assert(
      fc.property(fc.array(op, { maxLength: 40 }), (ops) => {
        const { events, workers } = setup();
        const ledger = new WorkerLedger();
        const expected: DiscoveryEvent[] = [];
        for (const { n, kind, version } of ops) {
          const worker = pool[n]?.[version];
          assert.ok(worker !== undefined);
          const entry = workers.get(worker.uid);
          if (kind === 'drop') {
            if (entry !== undefined) workers.drop(entry);
            const event = ledger.drop(worker.uid);
            if (event !== undefined) expected.push(event);
          } else if (kind === 'found') {
            // Found in the slot table, its block not taken yet: nothing told.
            if (entry === undefined) workers.add(worker.uid);
          } else {
            workers.accept(entry ?? workers.add(worker.uid), recordOf(encodeWorker(worker)));
            const event = ledger.put(worker);
            if (event !== undefined) expected.push(event);
          }
          assert.equal(workers.told.size, ledger.size);
        }
        assert.deepEqual(events, expected);
        const told: WorkerInfo[] = [];
        workers.told.forEach((worker) => told.push(worker));
        const byUid = (a: WorkerInfo, b: WorkerInfo): number => a.uid.localeCompare(b.uid);
        assert.deepEqual(told.sort(byUid), [...ledger.values()].sort(byUid));
        for (const worker of ledger.values()) assert.deepEqual(workers.told.get(worker.uid), worker);
        workers.close();
        assert.equal(workers.told.size, 0);
      }),
      { numRuns: 300 },
    );
  });

  it('keeps telling the metadata last reported while its block cannot be taken, and drops with it', () => {
    const { events, workers } = setup();
    const w = makeWorker({ version: '1' });
    const entry = workers.add(w.uid);
    workers.accept(entry, recordOf(encodeWorker(w)));
    workers.accept(entry, recordOf(Buffer.from([0xff, 0xff, 0xff])));
    assert.equal(workers.pendingCount, 1, 'pending: the record taken is not a worker');
    assert.equal(workers.told.get(w.uid), events[0]?.worker);
    workers.drop(entry, 'expired');
    assert.deepEqual(
      events.map((event) => [event.type, event.worker.version, event.reason]),
      [
        ['worker-added', '1', undefined],
        ['worker-dropped', '1', 'expired'],
      ],
    );
    assert.equal(workers.told.size, 0);
  });

  it("skips a malformed record (undecodable, another worker's, impossible length), reporting each once; pending until valid", () => {
    const { events, diagnostics, workers } = setup();
    const w = makeWorker();
    const entry = workers.add(w.uid);
    const junk = recordOf(Buffer.from([0xff, 0xff, 0xff]));
    workers.accept(entry, junk);
    workers.accept(Object.assign(entry, { taken: 0 }), junk); // the same bytes again: not reported twice
    assert.equal(diagnostics.length, 1);
    const other = makeWorker();
    workers.accept(entry, recordOf(encodeWorker(other)));
    assert.match(diagnostics[1]?.message ?? '', new RegExp(`holds worker ${other.uid}`));
    const bad = Buffer.alloc(4);
    bad.writeUInt32LE(5000, 0);
    writeBlockFile(w.uid, bad, 64);
    workers.refresh(entry);
    assert.match(diagnostics[2]?.message ?? '', /length prefix exceeds the 64-byte block/);
    assert.deepEqual(
      diagnostics.map((d) => [d.kind, d.uid]),
      [
        ['malformed-record', w.uid],
        ['malformed-record', w.uid],
        ['malformed-record', w.uid],
      ],
    );
    assert.equal(workers.pendingCount, 1);
    assert.equal(events.length, 0);
    unlinkSync(join(dir, blockName(w.uid)));
    writeBlockFile(w.uid, recordOf(encodeWorker(w))); // a new, valid block
    for (const pending of workers.takePending()) workers.recheck(pending);
    assert.deepEqual(
      events.map((event) => event.type),
      ['worker-added'],
    );
    assert.equal(workers.pendingCount, 0);
    workers.close();
  });

  it('forgets a trouble once the record is taken: the same malformed bytes later are reported again, and a rejected record is taken again', () => {
    const { events, diagnostics, workers } = setup();
    const w = makeWorker({ version: '1' });
    const entry = workers.add(w.uid);
    const junk = recordOf(Buffer.from([0xff, 0xff, 0xff]));
    const valid = recordOf(encodeWorker(w));
    workers.accept(entry, junk);
    assert.equal(diagnostics.length, 1);
    assert.equal(workers.takePending().size, 1);
    workers.accept(entry, valid);
    assert.equal(workers.takePending().size, 0, 'taken: not pending');
    workers.accept(entry, valid);
    assert.equal(workers.takePending().size, 0, 'the same valid record again: not pending');
    workers.accept(entry, junk);
    assert.equal(diagnostics.length, 2, 'reported again after a valid record');
    assert.equal(workers.takePending().size, 1);
    workers.accept(entry, junk);
    assert.equal(diagnostics.length, 2, 'the same junk again: not reported a third time');
    assert.equal(workers.takePending().size, 1, 'the same junk again: still pending');
    workers.accept(entry, valid);
    assert.equal(workers.takePending().size, 0);
    assert.deepEqual(events.map(summary), ['worker-added 1']);
    workers.close();
  });

  it('a changed block newer than the journal applied is not taken: pending, and another scan asked for', () => {
    const { events, workers, journalPath, journal, scheduled } = setup();
    const writer = Journal.openForWrite(journalPath, 64);
    assert.ok(writer);
    const w = makeWorker();
    const entry = workers.add(w.uid);
    writeBlockFile(w.uid, recordOf(encodeWorker(w)));
    journal.follow(() => true, true);
    writer.append(JOURNAL_ADDED, uidBytes(w.uid), 0, encodeWorker(w)); // not applied yet
    workers.recheck(entry);
    assert.equal(events.length, 0);
    assert.equal(workers.pendingCount, 1);
    assert.equal(scheduled(), 1);
    journal.follow(() => true);
    for (const pending of workers.takePending()) workers.recheck(pending);
    assert.deepEqual(
      events.map((event) => event.type),
      ['worker-added'],
    );
    writer.close();
    journal.close();
    workers.close();
  });

  it('a malformed record read from a block is remembered as a copy: reported once, whatever is read in between', () => {
    const { diagnostics, workers } = setup();
    const w = makeWorker();
    const entry = workers.add(w.uid);
    writeBlockFile(w.uid, recordOf(Buffer.from([0xff, 0xff, 0xff])));
    workers.refresh(entry);
    assert.equal(diagnostics.length, 1);
    // Another block read meanwhile: the reader's scratch now holds its bytes.
    const other = makeWorker();
    writeBlockFile(other.uid, recordOf(encodeWorker(other)));
    workers.refresh(workers.add(other.uid));
    workers.refresh(entry);
    assert.equal(diagnostics.length, 1, 'the same bytes again: not reported twice');
    writeBlockFile(w.uid, recordOf(Buffer.from([0xfe, 0xff, 0xff])));
    workers.refresh(entry);
    assert.equal(diagnostics.length, 2, 'other bad bytes: reported');
    workers.close();
  });

  it('workers that carry the same tags share one frozen list; lists apart stay apart', () => {
    const { events, workers } = setup();
    const tagged = (tags: string[]): WorkerInfo => {
      const w = makeWorker({ tags });
      workers.accept(workers.add(w.uid), recordOf(encodeWorker(w)));
      const seen = events.at(-1)?.worker;
      assert.ok(seen !== undefined && seen.uid === w.uid);
      assert.deepEqual(seen, w);
      return seen;
    };
    const gpu = [tagged(['gpu']), tagged(['gpu']), tagged(['gpu'])];
    assert.ok(gpu.every((w) => w.tags === gpu[0]?.tags && Object.isFrozen(w.tags)));
    const pair = [tagged(['a', 'b']), tagged(['a', 'b'])];
    assert.equal(pair[0]?.tags, pair[1]?.tags);
    // A lone tag spelt like a longer list's key is another list.
    const lone = tagged(['["a","b"]']);
    assert.deepEqual(lone.tags, ['["a","b"]']);
    assert.notEqual(lone.tags, pair[0]?.tags);
    assert.notEqual(tagged(['gpu', 'x']).tags, gpu[0]?.tags);
    workers.close();
  });

  it('reports nothing once its sink is closed, but keeps its state', () => {
    const { events, workers, sink } = setup();
    sink.closed = true;
    const w = makeWorker();
    workers.accept(workers.add(w.uid), recordOf(encodeWorker(w)));
    assert.equal(events.length, 0);
    assert.equal(workers.told.get(w.uid)?.uid, w.uid);
  });
});

/** What the sweep compares: any entry with a uid. */
interface Entry {
  readonly uid: string;
}

describe('BlockSweep', () => {
  const entries = (n: number): Entry[] => Array.from({ length: n }, () => ({ uid: randomUUID() }));

  it('all(): compares every block but the skipped ones, a slice per call, skipping stale entries without counting them', () => {
    const sweep = new BlockSweep<Entry>(2, 64);
    const list = entries(6);
    const skip = new Set([list[1] as Entry]);
    const gone = new Set([list[2] as Entry]);
    sweep.all(list, (entry) => skip.has(entry));
    assert.equal(sweep.remaining, 5);
    const compared: Entry[] = [];
    const compare = (entry: Entry): boolean => {
      compared.push(entry);
      return true;
    };
    const current = (entry: Entry): boolean => !gone.has(entry);
    assert.equal(sweep.next(current, compare), true);
    assert.deepEqual(compared, [list[0], list[3]]);
    assert.equal(sweep.next(current, compare), false, 'the last slice');
    assert.deepEqual(compared, [list[0], list[3], list[4], list[5]]);
    assert.equal(sweep.remaining, 0);
    assert.equal(sweep.next(current, compare), false, 'nothing queued');
  });

  it('poll(): a round-robin slice per tick, appended to what is queued', () => {
    const sweep = new BlockSweep<Entry>(100, 3);
    const list = entries(5);
    const seen: Entry[] = [];
    const run = (): void => {
      sweep.next(
        () => true,
        (entry) => {
          seen.push(entry);
          return true;
        },
      );
    };
    const at = (position: number): Entry | undefined => list[position];
    sweep.poll(at, list.length, () => false);
    run();
    sweep.poll(at, list.length, () => false);
    run();
    assert.deepEqual(seen, [list[0], list[1], list[2], list[3], list[4], list[0]]);
  });

  it('poll(): an entry just read is counted in the slice but not queued', () => {
    const sweep = new BlockSweep<Entry>(100, 3);
    const list = entries(5);
    const seen: Entry[] = [];
    sweep.poll(
      (position) => list[position],
      list.length,
      (entry) => entry === list[1],
    );
    sweep.next(
      () => true,
      (entry) => {
        seen.push(entry);
        return true;
      },
    );
    assert.deepEqual(seen, [list[0], list[2]]);
  });

  it('poll(): looks at each position at most once a tick, counts only the positions holding an entry, and follows positions filled and emptied between ticks', () => {
    const sweep = new BlockSweep<Entry>(100, 4);
    const list = entries(6);
    // A sparse table of 10 positions: two entries, at 1 and 7.
    const slots: (Entry | undefined)[] = Array.from({ length: 10 }, () => undefined);
    slots[1] = list[0];
    slots[7] = list[1];
    const looked: number[] = [];
    const at = (position: number): Entry | undefined => {
      looked.push(position);
      return slots[position];
    };
    const tick = (span = slots.length): Entry[] => {
      const seen: Entry[] = [];
      looked.length = 0;
      sweep.poll(at, span, () => false);
      sweep.next(
        () => true,
        (entry) => {
          seen.push(entry);
          return true;
        },
      );
      return seen;
    };
    // Fewer entries than the slice: each once, every position looked at once.
    assert.deepEqual(tick(), [list[0], list[1]]);
    assert.deepEqual(looked, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    slots[2] = list[2];
    slots[4] = list[3];
    slots[8] = list[4];
    slots[9] = list[5];
    slots[4] = undefined;
    // Went round once: starts again from position 0, and stops at the fourth entry found.
    assert.deepEqual(tick(), [list[0], list[2], list[1], list[4]]);
    assert.deepEqual(looked, [0, 1, 2, 3, 4, 5, 6, 7, 8]);
    // Goes on from where it stopped, past the end and round again.
    assert.deepEqual(tick(), [list[5], list[0], list[2], list[1]]);
    // The table shrank below the place: the round starts again from 0.
    assert.deepEqual(tick(3), [list[0], list[2]]);
    assert.deepEqual(looked, [0, 1, 2]);
    slots.fill(undefined);
    assert.deepEqual(tick(), []);
    assert.equal(looked.length, slots.length);
    assert.deepEqual(tick(0), [], 'no positions: nothing looked at');
    assert.deepEqual(looked, []);
  });

  it('poll(): an entry at two positions is queued for each', () => {
    const sweep = new BlockSweep<Entry>(100, 8);
    const [one] = entries(1);
    const slots = [one, undefined, one];
    const seen: Entry[] = [];
    sweep.poll(
      (position) => slots[position],
      slots.length,
      () => false,
    );
    sweep.next(
      () => true,
      (entry) => {
        seen.push(entry);
        return true;
      },
    );
    assert.deepEqual(seen, [one, one]);
  });

  it('stops when the subscriber left, and clear() forgets the rest', () => {
    const sweep = new BlockSweep<Entry>(4, 64);
    const list = entries(3);
    sweep.all(list, () => false);
    let calls = 0;
    assert.equal(
      sweep.next(
        () => true,
        () => {
          calls += 1;
          return false;
        },
      ),
      false,
    );
    assert.equal(calls, 1);
    sweep.clear();
    assert.equal(sweep.remaining, 0);
  });
});
