// SlotMirror against synthetic slot tables: real segment files (wool's
// layout, written with SegmentFile) in a private temp directory.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { closeSync, ftruncateSync, mkdtempSync, openSync, readSync, rmSync, unlinkSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it, mock } from 'node:test';
import { JOURNAL_ADDED, JOURNAL_DROPPED, type JournalRecord } from '../../../src/backends/local/journal/Journal.js';
import { FREE_SLOT, uidBytes } from '../../../src/backends/local/segment/slotTable.js';
import { SegmentFile } from '../../../src/backends/local/segment/SegmentFile.js';
import { HOLDS_WINDOW, SlotMirror, VERIFY_SLOTS } from '../../../src/backends/local/segment/SlotMirror.js';

const dir = mkdtempSync(join(tmpdir(), 'woolrx-slotmirror-'));
after(() => rmSync(dir, { recursive: true, force: true }));

let counter = 0;
function segment(capacity: number): { path: string; file: SegmentFile } {
  const path = join(dir, `segment-${++counter}`);
  const file = SegmentFile.create(path, capacity);
  assert.ok(file);
  return { path, file };
}

/** Applies a journal record's slot change, as the subscriber does. */
function applyRecord(mirror: SlotMirror, change: JournalRecord, uid: string): void {
  mirror.apply(change.slot, change.uid, uid, change.type !== JOURNAL_DROPPED);
}

function record(type: number, uid: string, slot: number | undefined): JournalRecord {
  return { seq: 0, type, uid: uidBytes(uid), slot, record: undefined, seeBlock: false };
}

const sorted = (values: Iterable<string>): string[] => [...values].sort();

describe('SlotMirror', () => {
  it('a missing segment has no slots; a segment appearing later is read', () => {
    const path = join(dir, 'not-yet');
    const mirror = new SlotMirror(path);
    assert.deepEqual([...mirror.read(true).changed], []);
    const file = SegmentFile.create(path, 8);
    assert.ok(file);
    const a = randomUUID();
    file.writeSlot(3, uidBytes(a));
    assert.deepEqual([...mirror.read(false).changed], [a]);
    assert.equal(mirror.has(a), true);
    file.close();
    mirror.close();
  });

  it('reports exactly the uids whose slots changed, in tables larger than one bisection leaf', () => {
    const capacity = 1000;
    const { path, file } = segment(capacity);
    const mirror = new SlotMirror(path);
    const uids = Array.from({ length: capacity }, () => randomUUID());
    for (const slot of [0, 17, 500, 998, 999]) file.writeSlot(slot, uidBytes(uids[slot] ?? ''));
    assert.deepEqual(sorted(mirror.read(true).changed), sorted([0, 17, 500, 998, 999].map((slot) => uids[slot] ?? '')));
    assert.deepEqual([...mirror.read(false).changed], [], 'nothing changed: nothing reported');
    file.writeSlot(17, FREE_SLOT); // freed
    file.writeSlot(501, uidBytes(uids[501] ?? '')); // taken
    file.writeSlot(999, uidBytes(uids[5] ?? '')); // taken by another uid
    assert.deepEqual(sorted(mirror.read(false).changed), sorted([uids[17], uids[501], uids[999], uids[5]].map(String)));
    assert.deepEqual(sorted(mirror.uids()), sorted([uids[0], uids[500], uids[501], uids[998], uids[5]].map(String)));
    assert.equal(mirror.has(uids[17] ?? ''), false);
    file.close();
    mirror.close();
  });

  it('counts a uid held by two slots until both are free', () => {
    const { path, file } = segment(4);
    const mirror = new SlotMirror(path);
    const a = randomUUID();
    file.writeSlot(0, uidBytes(a));
    file.writeSlot(2, uidBytes(a));
    mirror.read(true);
    file.writeSlot(0, FREE_SLOT);
    assert.deepEqual([...mirror.read(false).changed], [a]);
    assert.equal(mirror.has(a), true, 'still in slot 2');
    file.writeSlot(2, FREE_SLOT);
    mirror.read(false);
    assert.equal(mirror.has(a), false);
    file.close();
    mirror.close();
  });

  it('counts a uid held by three slots, freed one by one in any order, and counts it once', () => {
    const { path, file } = segment(6);
    const mirror = new SlotMirror(path);
    const [a, b] = [randomUUID(), randomUUID()];
    for (const slot of [0, 1, 3]) file.writeSlot(slot, uidBytes(a));
    file.writeSlot(4, uidBytes(b));
    mirror.read(true);
    assert.equal(mirror.size, 2, 'two distinct uids');
    assert.deepEqual([...mirror.uids()].sort(), [a, b].sort());
    for (const [slot, left] of [
      [1, true],
      [0, true],
      [3, false],
    ] as const) {
      file.writeSlot(slot, FREE_SLOT);
      mirror.read(false);
      assert.equal(mirror.has(a), left, `slot ${slot} freed`);
      assert.equal(mirror.size, left ? 2 : 1);
    }
    // Taken again by one slot: held by one, freed by one.
    file.writeSlot(5, uidBytes(a));
    mirror.read(false);
    assert.equal(mirror.has(a), true);
    file.writeSlot(5, FREE_SLOT);
    mirror.read(false);
    assert.equal(mirror.has(a), false);
    assert.equal(mirror.has(b), true);
    file.close();
    mirror.close();
  });

  it('journal records keep the copy current, so the next read finds only what others changed', () => {
    const { path, file } = segment(8);
    const mirror = new SlotMirror(path);
    mirror.read(true);
    const ours = randomUUID();
    const theirs = randomUUID();
    // A woolrx publisher: slot first, then the record.
    file.writeSlot(1, uidBytes(ours));
    applyRecord(mirror, record(JOURNAL_ADDED, ours, 1), ours);
    assert.equal(mirror.has(ours), true);
    // wool: the slot only.
    file.writeSlot(2, uidBytes(theirs));
    assert.deepEqual([...mirror.read(false).changed], [theirs]);
    file.writeSlot(1, FREE_SLOT);
    applyRecord(mirror, record(JOURNAL_DROPPED, ours, 1), ours);
    assert.equal(mirror.has(ours), false);
    assert.deepEqual([...mirror.read(false).changed], []);
    assert.equal(mirror.stale, false);
    file.close();
    mirror.close();
  });

  it('a record it cannot explain makes the copy stale (unknown slot, slot beyond the table, slot of another uid)', () => {
    const { path, file } = segment(4);
    const a = randomUUID();
    const b = randomUUID();
    file.writeSlot(0, uidBytes(a));
    for (const [what, bad] of [
      ['no slot', record(JOURNAL_ADDED, b, undefined)],
      ['beyond the table', record(JOURNAL_ADDED, b, 4)],
      ['held by another uid', record(JOURNAL_ADDED, b, 0)],
    ] as const) {
      const mirror = new SlotMirror(path);
      mirror.read(true);
      applyRecord(mirror, bad, b);
      assert.equal(mirror.stale, true, what);
      mirror.close();
    }
    // A drop of a uid still seen in another slot.
    const mirror = new SlotMirror(path);
    mirror.read(true);
    applyRecord(mirror, record(JOURNAL_DROPPED, a, 3), a);
    assert.equal(mirror.stale, true);
    mirror.close();
    file.close();
  });

  it('follows a replaced segment only when asked to re-check', () => {
    const { path, file } = segment(4);
    const a = randomUUID();
    file.writeSlot(0, uidBytes(a));
    const mirror = new SlotMirror(path);
    assert.deepEqual([...mirror.read(true).changed], [a]);
    file.close();
    unlinkSync(path);
    const replacement = SegmentFile.create(path, 4);
    assert.ok(replacement);
    const b = randomUUID();
    replacement.writeSlot(1, uidBytes(b));
    assert.deepEqual([...mirror.read(false).changed], [], 'still reading the old (unlinked) object');
    assert.deepEqual(sorted(mirror.read(true).changed), sorted([a, b]));
    assert.deepEqual([...mirror.uids()], [b]);
    replacement.close();
    mirror.close();
  });
  it('a segment removed, then re-created holding the same uids in the same slots: read again, whatever the reads in between', () => {
    const a = randomUUID();
    const b = randomUUID();
    for (const between of [1, 2, 3]) {
      const path = join(dir, `recreated-${between}`);
      const first = SegmentFile.create(path, 4);
      assert.ok(first);
      first.writeSlot(0, uidBytes(a));
      first.writeSlot(3, uidBytes(b));
      const mirror = new SlotMirror(path);
      assert.deepEqual(sorted(mirror.read(true).changed), sorted([a, b]));
      first.close();
      unlinkSync(path);
      for (let i = 0; i < between; i += 1) mirror.read(true);
      assert.deepEqual([...mirror.uids()], [], 'no segment: no uids');
      const second = SegmentFile.create(path, 4);
      assert.ok(second);
      second.writeSlot(0, uidBytes(a));
      second.writeSlot(3, uidBytes(b));
      assert.deepEqual(
        sorted(mirror.read(true).changed),
        sorted([a, b]),
        `${between} read(s) without a segment in between`,
      );
      assert.equal(mirror.has(a) && mirror.has(b), true);
      second.close();
      mirror.close();
      unlinkSync(path);
    }
  });

  it('a segment read whole, then damaged in place (header destroyed, impossible capacity, truncated): the copy is held, then read again once repaired', () => {
    const a = randomUUID();
    const b = randomUUID();
    const damages: [string, (fd: number) => void][] = [
      ['WLD1 destroyed', (fd) => writeSync(fd, Buffer.from('XXXX'), 0, 4, 0)],
      [
        'capacity 2^26, grown sparse',
        (fd) => {
          const huge = Buffer.alloc(4);
          huge.writeUInt32LE(2 ** 26);
          writeSync(fd, huge, 0, 4, 4);
          ftruncateSync(fd, 16 + 16 * 2 ** 26);
        },
      ],
      ['truncated to 2 of its 4 slots', (fd) => ftruncateSync(fd, 16 + 16 * 2)],
    ];
    for (const [what, damage] of damages) {
      const { path, file } = segment(4);
      file.writeSlot(0, uidBytes(a));
      file.writeSlot(3, uidBytes(b));
      const mirror = new SlotMirror(path);
      mirror.read(true);
      const fd = openSync(path, 'r+');
      const original = Buffer.alloc(16 + 16 * 4);
      readSync(fd, original, 0, original.length, 0);
      damage(fd);
      for (let i = 0; i < 3; i += 1) {
        const read = mirror.read(true);
        assert.equal(read.held, true, `${what}: held`);
        assert.deepEqual([...read.changed], [], `${what}: nothing reported changed`);
        assert.equal(read.healthy, false);
      }
      assert.equal(mirror.held, true);
      assert.deepEqual(sorted(mirror.uids()), sorted([a, b]), `${what}: the copy kept`);
      // Meanwhile: b dropped, c added.
      const c = randomUUID();
      original.set(FREE_SLOT, 16 + 16 * 3);
      original.set(uidBytes(c), 16 + 16 * 1);
      ftruncateSync(fd, original.length);
      writeSync(fd, original, 0, original.length, 0);
      closeSync(fd);
      const repaired = mirror.read(true);
      assert.equal(repaired.held, false);
      assert.equal(repaired.resumed, true, `${what}: resumed`);
      assert.equal(repaired.stale, true, `${what}: stale (compare every uid)`);
      assert.deepEqual(sorted(repaired.changed), sorted([b, c]));
      assert.deepEqual(sorted(mirror.uids()), sorted([a, c]));
      assert.equal(mirror.read(true).resumed, false);
      file.close();
      mirror.close();
    }
  });

  it('a segment never read whole (being created) is not held: it has no slots', () => {
    const { path, file } = segment(4);
    const fd = openSync(path, 'r+');
    writeSync(fd, Buffer.from('XXXX'), 0, 4, 0);
    const mirror = new SlotMirror(path);
    const read = mirror.read(true);
    assert.equal(read.held, false);
    assert.equal(mirror.size, 0);
    writeSync(fd, Buffer.from('WLD1'), 0, 4, 0);
    closeSync(fd);
    const a = randomUUID();
    file.writeSlot(2, uidBytes(a));
    assert.deepEqual([...mirror.read(true).changed], [a]);
    file.close();
    mirror.close();
  });

  it('a verifying read corrects a copy that diverged from the table, which the bisection alone never sees', () => {
    const { path, file } = segment(4);
    const [a, b] = [randomUUID(), randomUUID()];
    file.writeSlot(0, uidBytes(a));
    file.writeSlot(3, uidBytes(b));
    const mirror = new SlotMirror(path);
    mirror.read(true);
    file.close();
    unlinkSync(path);
    // Fault injected: the scratch table is not zeroed (as it once was),
    // so that after two reads without a segment the copy's bytes still hold
    // a and b while its uids say no slot is taken.
    const skipFill = function (this: Buffer): Buffer {
      return this;
    } as Buffer['fill'];
    const fill = mock.method(Buffer.prototype as { fill: Buffer['fill'] }, 'fill', skipFill);
    try {
      mirror.read(true);
      mirror.read(true);
    } finally {
      fill.mock.restore();
    }
    assert.equal(mirror.size, 0);
    const again = SegmentFile.create(path, 4);
    assert.ok(again);
    again.writeSlot(0, uidBytes(a));
    again.writeSlot(3, uidBytes(b));
    assert.deepEqual(
      [...mirror.read(true).changed],
      [],
      'the bisection compares with the wrong bytes: nothing changed',
    );
    assert.equal(mirror.has(a), false, 'diverged');
    const verified = mirror.read(true, VERIFY_SLOTS);
    assert.deepEqual(sorted(verified.changed), sorted([a, b]));
    assert.equal(verified.stale, true, 'compare every uid');
    assert.deepEqual(sorted(mirror.uids()), sorted([a, b]));
    // A slice at a time: slots past the slice are checked at the next read.
    assert.equal(mirror.read(true, 1).stale, false);
    again.close();
    mirror.close();
  });
});

describe('SlotMirror.holds', () => {
  it("reads the slot now, and the slots after it for the batch's other checks (fresh false), which re-read on a miss", () => {
    const { path, file } = segment(200);
    const uids = Array.from({ length: 200 }, () => randomUUID());
    for (let slot = 0; slot < 200; slot += 1) file.writeSlot(slot, uidBytes(uids[slot] ?? ''));
    const mirror = new SlotMirror(path);
    const bytes = (slot: number): Buffer => uidBytes(uids[slot] ?? '');
    assert.equal(mirror.holds(10, bytes(10), true, HOLDS_WINDOW), true);
    // Freed after that read: the batch's later checks take the slots read with it.
    file.writeSlot(12, FREE_SLOT);
    assert.equal(mirror.holds(12, bytes(12), false), true, 'answered by the read of slot 10');
    assert.equal(mirror.holds(12, bytes(12), true), false, 'a fresh check reads again');
    // A miss is never answered by the window: read again.
    const other = randomUUID();
    file.writeSlot(13, uidBytes(other));
    assert.equal(mirror.holds(13, uidBytes(other), false), true);
    // Beyond the window, and the last slot of the table.
    assert.equal(mirror.holds(13 + HOLDS_WINDOW, bytes(13 + HOLDS_WINDOW), false), true);
    // One slot asked for: one read, the next slot not taken with it.
    assert.equal(mirror.holds(150, bytes(150), true, 1), true);
    file.writeSlot(151, FREE_SLOT);
    assert.equal(mirror.holds(151, bytes(151), false), false, 'not in what was read: read again');
    assert.equal(mirror.holds(199, bytes(199), true, HOLDS_WINDOW), true);
    assert.equal(mirror.holds(198, bytes(198), false), true);
    assert.equal(mirror.holds(200, bytes(199)), false, 'no such slot');
    // A batch whose first record names no slot: its later checks do not take the last batch's slots.
    assert.equal(mirror.holds(190, bytes(190), true, 5), true);
    file.writeSlot(191, FREE_SLOT);
    assert.equal(mirror.holds(undefined, bytes(0)), false);
    assert.equal(mirror.holds(191, bytes(191), false), false, 'read again');
    mirror.close();
    file.close();
  });

  it('a window read from a segment since closed answers nothing', () => {
    const { path, file } = segment(100);
    const uid = randomUUID();
    file.writeSlot(5, uidBytes(uid));
    const mirror = new SlotMirror(path);
    assert.equal(mirror.holds(4, uidBytes(randomUUID()), true, 2), false);
    mirror.close();
    file.writeSlot(5, FREE_SLOT);
    assert.equal(mirror.holds(5, uidBytes(uid), false), false, 'read again, from the segment opened anew');
    file.close();
  });
});
