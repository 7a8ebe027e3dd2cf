// JournalFollower against synthetic journals: real journal files written
// with Journal, in a private temp directory.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { closeSync, mkdtempSync, openSync, readSync, rmSync, unlinkSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  Journal,
  JOURNAL_ADDED,
  JOURNAL_DROPPED,
  JOURNAL_RECORDS,
  JOURNAL_UPDATED,
  type JournalRecord,
} from '../../../src/backends/local/journal/Journal.js';
import { JournalFollower } from '../../../src/backends/local/journal/JournalFollower.js';
import { slotUid, uidBytes } from '../../../src/backends/local/segment/slotTable.js';

const dir = mkdtempSync(join(tmpdir(), 'woolrx-journal-'));
after(() => rmSync(dir, { recursive: true, force: true }));

let counter = 0;
function journal(): { path: string; writer: Journal } {
  const path = join(dir, `journal-${++counter}`);
  const writer = Journal.openForWrite(path, 64);
  assert.ok(writer);
  return { path, writer };
}

function follow(
  follower: JournalFollower,
  options: { skip?: boolean; verify?: boolean } = {},
): { ok: boolean; records: JournalRecord[] } {
  const records: JournalRecord[] = [];
  const ok = follower.follow(
    (record) => {
      records.push(record);
      return true;
    },
    options.skip,
    options.verify,
  );
  return { ok, records };
}

const describeRecord = (record: JournalRecord): string =>
  `${record.seq} ${record.type} ${slotUid(record.uid, 0)} ${String(record.slot)} ${record.record?.subarray(4).toString() ?? '-'}`;

describe('JournalFollower', () => {
  it('no journal: nothing to apply, nothing moved', () => {
    const follower = new JournalFollower(join(dir, 'none'));
    assert.deepEqual(follow(follower), { ok: true, records: [] });
    assert.equal(follower.moved(), false);
  });

  it('replays every record since the last call, in order, with its slot and payload', () => {
    const { path, writer } = journal();
    const a = randomUUID();
    const b = randomUUID();
    writer.append(JOURNAL_ADDED, uidBytes(a), 0, Buffer.from('old')); // before the subscription
    const follower = new JournalFollower(path);
    assert.deepEqual(
      follow(follower, { skip: true }),
      { ok: true, records: [] },
      'the initial state starts at the head',
    );
    assert.equal(follower.seq, 1);
    writer.append(JOURNAL_UPDATED, uidBytes(a), 0, Buffer.from('a2'));
    writer.append(JOURNAL_ADDED, uidBytes(b), 5, Buffer.from('b1'));
    writer.append(JOURNAL_DROPPED, uidBytes(a), 0, undefined);
    assert.equal(follower.moved(), true);
    const { ok, records } = follow(follower);
    assert.equal(ok, true);
    assert.deepEqual(records.map(describeRecord), [`1 2 ${a} 0 a2`, `2 1 ${b} 5 b1`, `3 3 ${a} 0 -`]);
    assert.equal(follower.moved(), false);
    assert.deepEqual(follow(follower).records, []);
    writer.close();
    follower.close();
  });

  it("checks each uid's last record of a batch once, in order, saying its place in the batch", () => {
    const { path, writer } = journal();
    const [a, b, c] = [randomUUID(), randomUUID(), randomUUID()];
    const calls: string[] = [];
    const follower = new JournalFollower(path, (record, index, count) => {
      calls.push(`${slotUid(record.uid, 0)} ${index}/${count}`);
      return true;
    });
    writer.append(JOURNAL_ADDED, uidBytes(a), 0, Buffer.from('a1'));
    assert.equal(follow(follower).records.length, 1);
    assert.deepEqual(calls.splice(0), [`${a} 0/1`]);
    writer.append(JOURNAL_ADDED, uidBytes(b), 1, Buffer.from('b1'));
    writer.append(JOURNAL_UPDATED, uidBytes(a), 0, Buffer.from('a2'));
    writer.append(JOURNAL_ADDED, uidBytes(c), 2, Buffer.from('c1'));
    writer.append(JOURNAL_UPDATED, uidBytes(b), 1, Buffer.from('b2'));
    assert.equal(follow(follower).records.length, 4);
    // The last record of each uid, in the order the uids first appear in the batch.
    assert.deepEqual(calls, [`${b} 0/3`, `${a} 1/3`, `${c} 2/3`]);
    writer.close();
    follower.close();
  });

  it('stops applying when told to (the subscriber left), without losing its position', () => {
    const { path, writer } = journal();
    const follower = new JournalFollower(path);
    follow(follower, { skip: true });
    for (let i = 0; i < 3; i += 1) writer.append(JOURNAL_ADDED, uidBytes(randomUUID()), i, Buffer.from('x'));
    let applied = 0;
    assert.equal(
      follower.follow(() => {
        applied += 1;
        return false;
      }),
      true,
    );
    assert.equal(applied, 1);
    assert.equal(follower.seq, 3);
    writer.close();
    follower.close();
  });

  it('an overrun (more than a ring behind) applies nothing and says so', () => {
    const { path, writer } = journal();
    const follower = new JournalFollower(path);
    follow(follower, { skip: true });
    for (let i = 0; i <= JOURNAL_RECORDS; i += 1)
      writer.append(JOURNAL_ADDED, uidBytes(randomUUID()), i, Buffer.from('x'));
    assert.deepEqual(follow(follower), { ok: false, records: [] });
    // Then it goes on from the head.
    writer.append(JOURNAL_DROPPED, uidBytes(randomUUID()), 0, undefined);
    assert.equal(follow(follower).records.length, 1);
    writer.close();
    follower.close();
  });

  it('a re-created journal (new epoch) is news from its first record, once re-checked', () => {
    const first = journal();
    const follower = new JournalFollower(first.path);
    follow(follower, { skip: true });
    first.writer.append(JOURNAL_ADDED, uidBytes(randomUUID()), 0, Buffer.from('x'));
    assert.equal(follow(follower).records.length, 1);
    first.writer.close();
    unlinkSync(first.path);
    const again = Journal.openForWrite(first.path, 64);
    assert.ok(again);
    const c = randomUUID();
    again.append(JOURNAL_ADDED, uidBytes(c), 2, Buffer.from('c'));
    assert.deepEqual(follow(follower).records, [], 'without verify, the unlinked journal is still read');
    assert.deepEqual(follow(follower, { verify: true }).records.map(describeRecord), [`0 1 ${c} 2 c`]);
    again.close();
    follower.close();
  });

  it("match: each record is owed one notification; one more is wool's", () => {
    const { path, writer } = journal();
    const follower = new JournalFollower(path);
    follow(follower, { skip: true });
    writer.append(JOURNAL_ADDED, uidBytes(randomUUID()), 0, Buffer.from('x'));
    writer.append(JOURNAL_ADDED, uidBytes(randomUUID()), 1, Buffer.from('y'));
    follow(follower);
    assert.equal(follower.match(1, false), true, "the first record's");
    assert.equal(follower.match(1, false), true, "the second record's");
    assert.equal(follower.match(1, false), false, "no record left: wool's");
    writer.append(JOURNAL_DROPPED, uidBytes(randomUUID()), 1, undefined);
    follow(follower);
    assert.equal(follower.match(2, false), false, "two events, one record: one is wool's");
    assert.equal(follower.match(0, false), true, 'no event: nothing to tell');
    writer.close();
    follower.close();
  });

  it('match: a record whose notification never came is written off at the second poll tick', () => {
    const { path, writer } = journal();
    const follower = new JournalFollower(path);
    follow(follower, { skip: true });
    writer.append(JOURNAL_ADDED, uidBytes(randomUUID()), 0, Buffer.from('x'));
    follow(follower);
    assert.equal(follower.match(0, true), true, 'first tick: marks the head');
    assert.equal(follower.match(0, true), false, 'second tick: still unmatched, written off');
    assert.equal(follower.match(1, false), false, "a late event now has no record: treated as wool's");
    assert.equal(follower.match(0, true), true);
    writer.close();
    follower.close();
  });

  it('moved() sees a journal appear when none was open', () => {
    const path = join(dir, 'later');
    const follower = new JournalFollower(path);
    follow(follower);
    assert.equal(follower.moved(), false);
    const writer = Journal.openForWrite(path, 64);
    assert.ok(writer);
    assert.equal(follower.moved(), true);
    writer.close();
    follower.close();
  });
  it('a journal that could not be used, then repaired: its records are replayed, and no notification is owed for them any more', () => {
    const { path, writer } = journal();
    const follower = new JournalFollower(path);
    follow(follower, { skip: true });
    const count = Buffer.alloc(4);
    const fd = openSync(path, 'r+');
    readSync(fd, count, 0, 4, 8);
    writeSync(fd, Buffer.alloc(4), 0, 4, 8); // a record count of 0
    // A writer that opened it before goes on appending (and notifying).
    const a = randomUUID();
    writer.append(JOURNAL_UPDATED, uidBytes(a), 0, Buffer.from('during'));
    assert.equal(follow(follower).ok, false, 'not used');
    assert.match(follower.takeProblem()?.message ?? '', /record count of 0/);
    assert.equal(follower.match(1, false), false, 'its notification: no record to match, so the segment is read');
    writeSync(fd, count, 0, 4, 8);
    closeSync(fd);
    assert.deepEqual(
      follow(follower).records.map((r) => r.record?.subarray(4).toString()),
      ['during'],
      'replayed once repaired',
    );
    assert.equal(
      follower.match(1, false),
      false,
      "the next notification (wool's) is not taken for the replayed record's",
    );
    writer.append(JOURNAL_UPDATED, uidBytes(a), 0, Buffer.from('after'));
    follow(follower);
    assert.equal(follower.match(1, false), true, 'matching goes on as before');
    writer.close();
    follower.close();
  });

  it('a journal that could not be used when first met (being created, or damaged) is replayed from its first record once usable, owing no notification', () => {
    const { path, writer } = journal();
    writer.append(JOURNAL_ADDED, uidBytes(randomUUID()), 0, Buffer.from('first'));
    const fd = openSync(path, 'r+');
    const magic = Buffer.alloc(4);
    readSync(fd, magic, 0, 4, 0);
    writeSync(fd, Buffer.alloc(4), 0, 4, 0); // no magic yet, as while its creator writes the header
    const follower = new JournalFollower(path);
    assert.deepEqual(follow(follower, { skip: true }), { ok: true, records: [] });
    assert.match(follower.takeProblem()?.message ?? '', /no WRX2 magic/);
    writer.append(JOURNAL_ADDED, uidBytes(randomUUID()), 1, Buffer.from('second'));
    assert.equal(follow(follower).ok, true, 'still not usable: nothing to apply');
    assert.equal(follower.match(1, false), false, 'a notification meanwhile: the segment is read');
    writeSync(fd, magic, 0, 4, 0);
    closeSync(fd);
    assert.deepEqual(
      follow(follower).records.map((r) => r.record?.subarray(4).toString()),
      ['first', 'second'],
      'every record: all of it is news',
    );
    assert.equal(follower.match(1, false), false, 'owing no notification');
    writer.close();
    follower.close();
  });

  // A publisher frees a slot, then journals the drop: a record met in
  // between (the add before) is not shown by the segment. On a loaded
  // machine the publisher may be descheduled there for long (over 200 ms
  // was seen): the record waits while a writer holds the lock, whatever the time.
  it('a record the segment does not show waits while a writer holds the lock, however long, and is applied once explained', async () => {
    const { path, writer } = journal();
    const x = randomUUID();
    const shown = new Set<number>();
    let busy = true;
    const follower = new JournalFollower(
      path,
      (record) => shown.has(record.seq),
      () => busy,
    );
    assert.deepEqual(follow(follower, { skip: true }).records, []);
    writer.append(JOURNAL_ADDED, uidBytes(x), 3, Buffer.from('x1')); // seq 0: its slot is freed already
    for (let i = 0; i < 3; i += 1) {
      assert.deepEqual(follow(follower), { ok: true, records: [] }, 'not applied, not skipped');
      assert.equal(follower.behind, true);
      await sleep(60); // past the settling time
    }
    assert.deepEqual(follower.takeSkipped(), []);
    // The publisher runs again: the drop is journaled (the segment shows it).
    writer.append(JOURNAL_DROPPED, uidBytes(x), 3, undefined);
    shown.add(1);
    busy = false;
    const { ok, records } = follow(follower);
    assert.equal(ok, true);
    assert.deepEqual(records.map(describeRecord), [`0 1 ${x} 3 x1`, `1 3 ${x} 3 -`], 'the add and the drop, in order');
    assert.equal(follower.behind, false);
    writer.close();
    follower.close();
  });

  it('a record no record can explain (the lock free, nothing appended since) is skipped after the settling time; the replay goes on', async () => {
    const { path, writer } = journal();
    const forged = randomUUID();
    const real = randomUUID();
    const shown = new Set<number>([1]);
    let probes = 0;
    const follower = new JournalFollower(
      path,
      (record) => shown.has(record.seq),
      () => {
        probes += 1;
        return false;
      },
    );
    assert.deepEqual(follow(follower, { skip: true }).records, []);
    writer.append(JOURNAL_ADDED, uidBytes(forged), 5, Buffer.from('ghost')); // seq 0: never in a slot
    writer.append(JOURNAL_ADDED, uidBytes(real), 6, Buffer.from('real')); // seq 1
    assert.deepEqual(follow(follower), { ok: true, records: [] }, 'waits first');
    assert.equal(probes, 0, 'the lock is not asked before the settling time');
    await sleep(60);
    const { ok, records } = follow(follower);
    assert.equal(ok, false, 'the caller reads the segment');
    assert.deepEqual(records.map(describeRecord), [`1 1 ${real} 6 real`]);
    assert.deepEqual(follower.takeSkipped().map(describeRecord), [`0 1 ${forged} 5 ghost`]);
    assert.equal(probes, 1);
    writer.close();
    follower.close();
  });

  it('a change finished while the lock was asked (the head moved): read first; then the record is skipped, and only it', async () => {
    const { path, writer } = journal();
    const forged = randomUUID();
    const later = randomUUID();
    const shown = new Set<number>();
    let finish = true;
    const follower = new JournalFollower(
      path,
      (record) => shown.has(record.seq),
      () => {
        // A section that was half done when the batch was checked ends before the lock is found free.
        if (finish) writer.append(JOURNAL_ADDED, uidBytes(later), 7, Buffer.from('later')); // seq 1, not shown yet
        finish = false;
        return false;
      },
    );
    assert.deepEqual(follow(follower, { skip: true }).records, []);
    writer.append(JOURNAL_ADDED, uidBytes(forged), 5, Buffer.from('ghost')); // seq 0
    follow(follower);
    await sleep(60);
    assert.deepEqual(
      follow(follower),
      { ok: true, records: [] },
      'the records appended meanwhile are read before anything is skipped',
    );
    assert.deepEqual(follower.takeSkipped(), []);
    // Read now (up to the head seen when the lock was free), and still
    // unexplained: skipped; seq 1, checked after the lock was free, waits its own turn.
    const { ok, records } = follow(follower);
    assert.equal(ok, false);
    assert.deepEqual(records, []);
    assert.deepEqual(follower.takeSkipped().map(describeRecord), [`0 1 ${forged} 5 ghost`]);
    assert.equal(follower.behind, true);
    shown.add(1);
    assert.deepEqual(follow(follower).records.map(describeRecord), [`1 1 ${later} 7 later`]);
    writer.close();
    follower.close();
  });
});

describe('Journal.readRange', () => {
  function filled(payloadCapacity: number, appends: number): { path: string; writer: Journal; reader: Journal } {
    const path = join(dir, `journal-${++counter}`);
    const writer = Journal.openForWrite(path, payloadCapacity);
    assert.ok(writer);
    for (let i = 0; i < appends; i += 1) {
      const type = i % 3 === 2 ? JOURNAL_DROPPED : JOURNAL_ADDED;
      writer.append(
        type,
        uidBytes(randomUUID()),
        i,
        type === JOURNAL_DROPPED ? undefined : Buffer.from(`payload ${i}`),
      );
    }
    const reader = Journal.openForRead(path);
    assert.ok(reader instanceof Journal);
    return { path, writer, reader };
  }

  it('reads what read() reads record by record, across the end of the ring and in runs of any length', () => {
    // 104-byte records: a run is bounded by the ring's end; 40,040-byte records: one record per read.
    for (const [capacity, appends] of [
      [64, JOURNAL_RECORDS + 200],
      [40_000, 40],
    ] as const) {
      const { writer, reader } = filled(capacity, appends);
      const head = reader.head();
      const oldest = Math.max(0, head - JOURNAL_RECORDS);
      for (const [from, to] of [
        [oldest, head],
        [head - 3, head],
        [oldest + 1, oldest + 2],
        [head, head],
        [Math.max(oldest, JOURNAL_RECORDS - 5), Math.min(head, JOURNAL_RECORDS + 5)],
      ] as const) {
        if (from > to) continue; // the ring's end is not reached by 40 records
        const ranged: JournalRecord[] = [];
        assert.equal(reader.readRange(from, to, ranged), true, `${from}..${to}`);
        const single: (JournalRecord | undefined)[] = [];
        for (let seq = from; seq < to; seq += 1) single.push(reader.read(seq));
        assert.deepEqual(ranged, single, `${capacity}: ${from}..${to}`);
        assert.equal(ranged.length, to - from);
      }
      writer.close();
      reader.close();
    }
  });

  it('stops at the first record it cannot read (overwritten, or torn), with the ones before it read', () => {
    const { path, writer, reader } = filled(64, 20);
    const into: JournalRecord[] = [];
    // Record 3's sequence number says another record: it was overwritten (or is being written).
    const fd = openSync(path, 'r+');
    const at = 64 + 3 * reader.recordSize;
    const seq = Buffer.alloc(8);
    seq.writeUInt32LE(3 + JOURNAL_RECORDS, 0);
    writeSync(fd, seq, 0, 8, at);
    closeSync(fd);
    assert.equal(reader.readRange(0, 20, into), false);
    assert.deepEqual(
      into.map((record) => record.seq),
      [0, 1, 2],
    );
    // Records overwritten by a ring's worth more: the first asked for is no longer there.
    for (let i = 0; i < JOURNAL_RECORDS; i += 1) writer.append(JOURNAL_ADDED, uidBytes(randomUUID()), i, undefined);
    const none: JournalRecord[] = [];
    assert.equal(reader.readRange(5, 10, none), false);
    assert.deepEqual(none, []);
    writer.close();
    reader.close();
  });
});
