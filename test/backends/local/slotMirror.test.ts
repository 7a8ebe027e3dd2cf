// SlotMirror against synthetic slot tables: real segment files (wool's
// layout, written with SegmentFile) in a private temp directory.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { JOURNAL_ADDED, JOURNAL_DROPPED, type JournalRecord } from '../../../src/backends/local/Journal.js';
import { FREE_SLOT } from '../../../src/backends/local/layout.js';
import { SegmentFile } from '../../../src/backends/local/SegmentFile.js';
import { SlotMirror } from '../../../src/backends/local/SlotMirror.js';
import { uidBytes } from '../../../src/backends/local/uidBytes.js';

const dir = mkdtempSync(join(tmpdir(), 'woolrx-slotmirror-'));
after(() => rmSync(dir, { recursive: true, force: true }));

let counter = 0;
function segment(capacity: number): { path: string; file: SegmentFile } {
  const path = join(dir, `segment-${++counter}`);
  const file = SegmentFile.create(path, capacity);
  assert.ok(file);
  return { path, file };
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

  it('journal records keep the copy current, so the next read finds only what others changed', () => {
    const { path, file } = segment(8);
    const mirror = new SlotMirror(path);
    mirror.read(true);
    const ours = randomUUID();
    const theirs = randomUUID();
    // A woolrx publisher: slot first, then the record.
    file.writeSlot(1, uidBytes(ours));
    mirror.applyRecord(record(JOURNAL_ADDED, ours, 1), ours);
    assert.equal(mirror.has(ours), true);
    // wool: the slot only.
    file.writeSlot(2, uidBytes(theirs));
    assert.deepEqual([...mirror.read(false).changed], [theirs]);
    file.writeSlot(1, FREE_SLOT);
    mirror.applyRecord(record(JOURNAL_DROPPED, ours, 1), ours);
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
      mirror.applyRecord(bad, b);
      assert.equal(mirror.stale, true, what);
      mirror.close();
    }
    // A drop of a uid still seen in another slot.
    const mirror = new SlotMirror(path);
    mirror.read(true);
    mirror.applyRecord(record(JOURNAL_DROPPED, a, 3), a);
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
});
