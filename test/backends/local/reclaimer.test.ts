// Reclaimer: liveness and the reclaim of dead workers, on a real namespace
// (segment, blocks, journal, locks) with a pid that really is gone.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, describe, it } from 'node:test';
import { Subject } from 'rxjs';
import { BlockReader } from '../../../src/backends/local/block/BlockReader.js';
import { NamespaceWriter } from '../../../src/backends/local/NamespaceWriter.js';
import { blockName } from '../../../src/backends/local/block/blockFile.js';
import { findSlot, slotUid, uidBytes } from '../../../src/backends/local/segment/slotTable.js';
import { localDiscovery } from '../../../src/backends/local/index.js';
import { JOURNAL_DROPPED, type JournalRecord } from '../../../src/backends/local/journal/Journal.js';
import { JournalFollower } from '../../../src/backends/local/journal/JournalFollower.js';
import { localNames } from '../../../src/backends/local/names/localNames.js';
import { Reclaimer } from '../../../src/backends/local/Reclaimer.js';
import { SegmentFile } from '../../../src/backends/local/segment/SegmentFile.js';
import type { LocalSettings } from '../../../src/backends/local/types.js';
import type { DiscoveryDiagnostic } from '../../../src/discovery/types.js';
import { WorkerLedger } from '../../../src/events/WorkerLedger.js';
import type { WorkerInfo } from '../../../src/model/types.js';
import { workerInfo } from '../../../src/model/workerInfo.js';
import { assertClean, makeWorker, strayTestFiles, TMP, uniqueNamespace } from './helpers.js';

const used: { namespace: string; uids: string[] }[] = [];
after(async () => {
  for (const { namespace, uids } of used) await assertClean(namespace, uids);
  assert.deepEqual(strayTestFiles(), []);
});

/** The pid of a process that has exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(child.stdout);
}

const SETTINGS: LocalSettings = {
  capacity: 8,
  blockSize: 1024,
  lockTimeout: 5000,
  pollInterval: 1000,
  liveness: true,
};

/**
 * @param registrantOf What the subscriber knows of each worker's registrant
 * mark (by default, the Reclaimer reads it from the block each time).
 */
function setup(settings: LocalSettings = SETTINGS, registrantOf?: (uid: string) => number) {
  const namespace = uniqueNamespace('reclaim');
  const uids: string[] = [];
  used.push({ namespace, uids });
  const names = localNames(namespace, TMP);
  const publisher = localDiscovery(namespace, { pollInterval: false, capacity: 8 }).publisher();
  const register = async (worker: WorkerInfo): Promise<WorkerInfo> => {
    uids.push(worker.uid);
    await publisher.publish('worker-added', worker);
    return worker;
  };
  const ledger = new WorkerLedger();
  const diagnostics: DiscoveryDiagnostic[] = [];
  const subject = new Subject<DiscoveryDiagnostic>();
  subject.subscribe((d) => diagnostics.push(d));
  let attempts = 0;
  let attempted: () => void = () => undefined;
  const reclaimer = new Reclaimer(
    names.namespace,
    settings,
    subject,
    ledger,
    new BlockReader(names.shmDir),
    NamespaceWriter.withdrawal(names, settings, subject),
    () => {
      attempts += 1;
      attempted();
    },
    registrantOf,
  );
  const nextAttempt = (): Promise<void> => new Promise((resolve) => (attempted = resolve));
  const journal = new JournalFollower(names.journalPath);
  const journaled = (): JournalRecord[] => {
    const records: JournalRecord[] = [];
    journal.follow((record) => records.push(record) > 0);
    return records;
  };
  const slotOf = (uid: string): number => {
    const segment = SegmentFile.open(names.segmentPath, false);
    assert.ok(segment);
    const capacity = segment.capacity() ?? 0;
    const table = Buffer.alloc(16 * capacity);
    segment.readTable(table, capacity);
    segment.close();
    return findSlot(table, table.length, uidBytes(uid));
  };
  return {
    names,
    publisher,
    register,
    ledger,
    diagnostics,
    reclaimer,
    nextAttempt,
    attempts: () => attempts,
    journal,
    journaled,
    slotOf,
  };
}

describe('Reclaimer', () => {
  it('reclaims a dead worker through the withdraw path: slot freed, block unlinked, drop journaled; the living stay', async () => {
    const s = setup();
    const dead = await s.register(makeWorker({ pid: deadPid() }));
    const alive = await s.register(makeWorker());
    s.ledger.put(dead);
    s.ledger.put(alive);
    s.journaled(); // start at the head
    const attempt = s.nextAttempt();
    s.reclaimer.check(new Set(), performance.now() + 60_000); // a full sweep is due
    await attempt;
    assert.deepEqual(
      s.diagnostics.map((d) => [d.kind, d.uid]),
      [['recovered', dead.uid]],
    );
    assert.match(s.diagnostics[0]?.message ?? '', new RegExp(`pid ${dead.pid} no longer exists`));
    assert.equal(s.slotOf(dead.uid), -1);
    assert.equal(existsSync(join('/dev/shm', blockName(dead.uid))), false);
    assert.deepEqual(
      s.journaled().map((record) => [record.type, slotUid(record.uid, 0)]),
      [[JOURNAL_DROPPED, dead.uid]],
    );
    assert.ok(s.slotOf(alive.uid) >= 0);
    s.journal.close();
    await s.publisher.close();
  });

  it('leaves a worker whose block now names a living process (re-registered since) alone', async () => {
    // The subscriber has not read the block since: it knows no registrant
    // mark, so only the check under the lock finds the living process.
    const s = setup(SETTINGS, () => 0);
    const w = await s.register(makeWorker()); // the block: this (living) process
    s.ledger.put(workerInfo({ ...w, pid: deadPid() })); // what the subscriber was told earlier
    s.journaled();
    const attempt = s.nextAttempt();
    s.reclaimer.check(new Set(), performance.now() + 60_000);
    await attempt;
    assert.deepEqual(s.diagnostics, []);
    assert.ok(s.slotOf(w.uid) >= 0);
    assert.deepEqual(s.journaled(), []);
    s.journal.close();
    await s.publisher.close();
  });

  it('follows the registrant mark, not the pid of the latest metadata', async () => {
    // A: registered here (mark: this living process), re-added by another
    // publisher naming a dead pid. B: registered naming a dead pid (mark:
    // that pid), re-added naming this living process.
    const s = setup();
    const other = localDiscovery(s.names.namespace, { pollInterval: false, capacity: 8 }).publisher();
    const a = await s.register(makeWorker());
    const b = await s.register(makeWorker({ pid: deadPid() }));
    const aNow = workerInfo({ ...a, pid: deadPid(), version: '2' });
    const bNow = workerInfo({ ...b, pid: process.pid, version: '2' });
    await other.publish('worker-added', aNow);
    await other.publish('worker-added', bNow);
    await other.close(); // owns neither: withdraws nothing
    s.ledger.put(aNow);
    s.ledger.put(bNow);
    s.journaled();
    const attempt = s.nextAttempt();
    s.reclaimer.check(new Set(), performance.now() + 60_000);
    await attempt;
    assert.deepEqual(
      s.diagnostics.map((d) => [d.kind, d.uid]),
      [['recovered', b.uid]],
    );
    assert.match(
      s.diagnostics[0]?.message ?? '',
      new RegExp(`pid ${b.pid} no longer exists: the process its registrant named`),
    );
    assert.equal(s.slotOf(b.uid), -1);
    assert.ok(s.slotOf(a.uid) >= 0, 'A stays: its registrant lives');
    assert.deepEqual(
      s.journaled().map((record) => [record.type, slotUid(record.uid, 0)]),
      [[JOURNAL_DROPPED, b.uid]],
    );
    s.journal.close();
    await s.publisher.close();
  });

  it('a registrant publishing another pid moves its mark (the worker then follows that pid)', async () => {
    const s = setup();
    const gone = deadPid();
    const a = await s.register(makeWorker());
    await s.publisher.publish('worker-updated', workerInfo({ ...a, pid: gone, version: '2' })); // the owner: the mark follows
    s.ledger.put(workerInfo({ ...a, pid: gone, version: '2' }));
    const attempt = s.nextAttempt();
    s.reclaimer.check(new Set(), performance.now() + 60_000);
    await attempt;
    assert.deepEqual(
      s.diagnostics.map((d) => [d.kind, d.uid]),
      [['recovered', a.uid]],
    );
    s.journal.close();
    await s.publisher.close();
  });

  it('between sweeps checks only fresh workers; with liveness off checks nothing', async () => {
    const s = setup();
    const now = performance.now() + 60_000;
    s.reclaimer.check(new Set(), now); // the sweep: nothing known yet
    const dead = await s.register(makeWorker({ pid: deadPid() }));
    s.ledger.put(dead);
    s.reclaimer.check(new Set(), now + 1); // not fresh, no sweep due
    await sleep(50);
    assert.equal(s.attempts(), 0);
    const attempt = s.nextAttempt();
    s.reclaimer.check(new Set([BlockReader.handle(dead.uid)]), now + 2); // found just now
    await attempt;
    assert.deepEqual(
      s.diagnostics.map((d) => d.kind),
      ['recovered'],
    );
    await s.publisher.close();

    const off = setup({ ...SETTINGS, liveness: false });
    const ghost = await off.register(makeWorker({ pid: deadPid() }));
    off.ledger.put(ghost);
    off.reclaimer.check(new Set(), performance.now() + 60_000);
    await sleep(50);
    assert.equal(off.attempts(), 0);
    assert.ok(off.slotOf(ghost.uid) >= 0);
    // The ghost is the publisher's: its close withdraws it.
    await off.publisher.close();
  });
});
