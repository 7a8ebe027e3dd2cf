import { unlinkSync } from 'node:fs';
import { STAT_INO, statIds } from './addon/statIds.js';
import { dirname } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Subject } from 'rxjs';
import type { DiscoveryDiagnostic } from '../../discovery/types.js';
import { SegmentNotReadyError, SegmentTooLargeError } from './segment/segmentErrors.js';
import { NamespaceLock, removeLockParent } from './lock/namespaceLock.js';
import { blockPath, LENGTH_PREFIX } from './block/blockFile.js';
import { recordSegmentOwner } from './namespaceCleanup.js';
import type { DropReason } from '../../events/types.js';
import { Journal, JOURNAL_DROPPED } from './journal/Journal.js';
import { FREE_SLOT, MAX_READ_CAPACITY, SLOT_SIZE, slotUid, uidBytes } from './segment/slotTable.js';
import { SegmentFile } from './segment/SegmentFile.js';
import { SlotIndex } from './segment/SlotIndex.js';
import { tmpdirError } from './TmpdirUnusableError.js';
import { openNotify, touchNotify } from './notify/notify.js';
import type { LocalSettings } from './types.js';
import type { LocalNames } from './names/localNames.js';
import { LockHolding, type Release } from './lock/LockHolding.js';
import type { Withdraw } from './Reclaimer.js';

/** Thrown inside a critical section when the segment has no `WLD1` header yet. */
export class SegmentNotReady extends Error {}

/**
 * The write side of a local namespace, shared by everyone who changes it:
 * a {@link LocalPublisher} (publish, withdrawal on close) and a subscriber's
 * {@link Reclaimer} (withdrawing dead workers). It runs critical sections
 * under the namespace lock ({@link NamespaceWriter.locked}) on the segment
 * the name points at now, with the slot table read under the lock (and
 * indexed: {@link NamespaceWriter.findSlot}), and owns the one withdraw path
 * ({@link NamespaceWriter.withdraw}: slot freed, block unlinked, drop
 * journaled).
 * @internal
 */
export class NamespaceWriter {
  readonly #names: LocalNames;
  readonly #settings: LocalSettings;
  readonly #diagnostics: Subject<DiscoveryDiagnostic>;
  #segment: SegmentFile | undefined;
  #journal: Journal | undefined;
  /** The namespace lock and its intent record, kept open between sections; closed by `close()`. */
  readonly #lock: NamespaceLock;
  /** Some section took the lock (and so may have created wool's lock file or the lock directory). */
  #everLocked = false;
  /** The segment was (re)opened by the current critical section. */
  #segmentReopened = true;
  /** Scratch for reading the slot table under the lock. */
  #table: Buffer = Buffer.alloc(0);
  /** Where each uid and the first free slot are in the slot table read under the lock. */
  readonly #index = new SlotIndex();
  /** When the lock is taken, kept and let go, and when notifications go out. */
  readonly #holding: LockHolding;

  /**
   * @param diagnostics Where to report what is not an error of the caller.
   */
  constructor(names: LocalNames, settings: LocalSettings, diagnostics: Subject<DiscoveryDiagnostic>) {
    this.#names = names;
    this.#settings = settings;
    this.#diagnostics = diagnostics;
    const lock = new NamespaceLock({ ...names, lockTimeout: settings.lockTimeout });
    this.#lock = lock;
    this.#holding = new LockHolding(
      (count, verify) => this.#touch(count, verify),
      () => lock.waited(),
      (count, error) =>
        diagnostics.next({
          kind: 'warning',
          namespace: names.namespace,
          message:
            `Could not notify subscribers of namespace ${JSON.stringify(names.namespace)} of ${count} change(s); ` +
            `they find them at their next poll`,
          error,
        }),
    );
  }

  /**
   * A {@link Withdraw} for a subscriber's reclaims: each call opens a
   * writer, withdraws under the lock, and closes it.
   * @param settings Resolved options (the lock's timeout).
   * @param diagnostics Where to report what is not an error of the caller.
   * @returns The withdrawal.
   */
  static withdrawal(names: LocalNames, settings: LocalSettings, diagnostics: Subject<DiscoveryDiagnostic>): Withdraw {
    return async (uids, confirm, reason) => {
      const writer = new NamespaceWriter(names, settings, diagnostics);
      const withdrawn: string[] = [];
      try {
        await writer.locked(
          (segment) => {
            if (segment === undefined) return 0;
            for (const uid of uids) if (confirm(uid) && writer.withdraw(segment, uid, reason)) withdrawn.push(uid);
            return withdrawn.length;
          },
          false,
          false,
        );
      } finally {
        writer.close();
      }
      return withdrawn;
    };
  }

  /** Whether a section ever took the lock, or a segment is held (so a closing owner has something to clean up). */
  get touched(): boolean {
    return this.#everLocked || this.#segment !== undefined;
  }

  /**
   * The first slot holding a uid in the table read by the current section.
   * @param bytes The worker's 16 UUID bytes.
   * @returns The slot number, or -1.
   */
  findSlot(bytes: Buffer): number {
    return this.#index.find(bytes);
  }

  /** @returns The first free slot of the table read by the current section, or -1. */
  firstFree(): number {
    return this.#index.firstFree();
  }

  /**
   * Writes one slot of the segment (under the lock), and keeps the index of
   * the table the current section read in step.
   * @param bytes 16 bytes: a UUID, or zeros to free it.
   */
  writeSlot(segment: SegmentFile, slot: number, bytes: Buffer): void {
    segment.writeSlot(slot, bytes);
    this.#index.set(slot, bytes);
  }

  /**
   * Runs `section` under the namespace lock with the current segment
   * (created when `create` and missing), retrying while the segment is not
   * ready; then notifies subscribers once per journal record the section
   * reports. When the lock is taken, kept for the next section and let go,
   * and when notifications go out, is the {@link LockHolding}'s policy. A
   * kept lock stays valid: nobody else can have changed the slot table, the
   * lock files or the intent record meanwhile, so the next section reads
   * none of them again (the segment's path is still checked: wool's owner
   * unlinks it at exit without the lock).
   * @param section The synchronous read-modify-write; returns how many
   * journal records it appended that still owe a notification.
   * @param create Create the segment if there is none.
   * @param keep May keep the lock for the next section (`false`: the caller
   * is about to take it again from another descriptor, or is leaving).
   */
  async locked(section: (segment: SegmentFile | undefined) => number, create: boolean, keep = true): Promise<void> {
    const deadline = performance.now() + this.#settings.lockTimeout;
    const holding = this.#holding;
    for (;;) {
      const turn = await holding.take(this.#acquire);
      this.#everLocked = true;
      // Not to be kept: what the burst owes goes out first (the section may
      // remove the notification file, which a later touch would re-create).
      if (turn.kept && !keep) holding.flush();
      let notReady = false;
      let records = 0;
      let held = false;
      try {
        const segment = this.#currentSegment(create, turn.kept);
        if (segment !== undefined && !turn.kept) this.#recoverIntent();
        records = section(segment);
        held = holding.mayKeep(turn, keep);
      } catch (error) {
        if (!(error instanceof SegmentNotReady)) throw tmpdirError(dirname(this.#names.lockPath), error) ?? error;
        notReady = true;
      } finally {
        if (!held) holding.release();
      }
      if (notReady) {
        if (performance.now() >= deadline) {
          throw new SegmentNotReadyError(this.#names.segmentPath, this.#names.namespace, this.#settings.lockTimeout);
        }
        await sleep(2);
        continue;
      }
      // One record, one notification (see JournalFollower#match). The touch
      // wakes every subscriber, wool's and woolrx's, after the section: a
      // woken subscriber reads without the lock, so it finds the work done
      // whether or not the lock is still kept. The file is removed only
      // with the segment: it is re-checked only if the segment had to be
      // (re)opened.
      holding.done(turn, held, records, this.#segmentReopened);
      return;
    }
  }

  /** Takes the namespace lock afresh for {@link LockHolding.take}; its release clears the intent record first. */
  readonly #acquire = async (): Promise<Release> => {
    let unlock: Release;
    try {
      unlock = await this.#lock.acquire();
    } catch (error) {
      // Never held: nothing of the namespace was made but perhaps the
      // lock directory, for this attempt (a no-op while others use it).
      if (!this.#everLocked) removeLockParent(this.#names);
      throw tmpdirError(dirname(this.#names.lockPath), error) ?? error;
    }
    // Another holder may have appended since our last section.
    this.#journal?.forgetHead();
    return unlock;
  };

  /** Sends `count` notifications; only the first re-checks the file. */
  #touch(count: number, verify: boolean): void {
    for (let i = 0; i < count; i += 1) touchNotify(this.#names, verify && i === 0);
  }

  /**
   * The journal (under the lock), re-opened or created if the last one out
   * removed it; `undefined` if the file there has another format (then
   * subscribers find the changes by scanning).
   * @returns The journal, or `undefined`.
   */
  journal(): Journal | undefined {
    // The last one out removes the journal only with the segment, so while we
    // hold the same segment as before, the journal we hold is current.
    if (this.#journal !== undefined && this.#segmentReopened && !this.#journal.isLinked()) {
      this.#journal.close();
      this.#journal = undefined;
    }
    this.#journal ??= Journal.openForWrite(
      this.#names.journalPath,
      Math.max(1020, this.#settings.blockSize - LENGTH_PREFIX),
    );
    return this.#journal;
  }

  /**
   * The path of a worker's block.
   * @returns `/dev/shm/<short_hash(uuid hex)>`.
   */
  blockPath(uid: string): string {
    return blockPath(this.#names.shmDir, uid);
  }

  /**
   * The identity of a worker's block file (its inode), under the lock: a
   * block is created once per registration (a refresh rewrites it in place),
   * so the inode tells one registration from a later one of the same uid.
   * @returns The inode, or `undefined` when there is no block.
   */
  blockIno(uid: string): number | undefined {
    return statIds(this.blockPath(uid))?.[STAT_INO];
  }

  /**
   * The one withdraw path (under the lock): frees the worker's slot, unlinks
   * its block and journals the drop. The caller owes one notification.
   * @param reason Why, for subscribers: a publisher's withdrawal, or a reclaim of a dead worker.
   * @returns `false` when the worker was not registered (nothing changed).
   */
  withdraw(segment: SegmentFile, uid: string, reason: DropReason = 'withdrawn'): boolean {
    const bytes = uidBytes(uid);
    const slot = this.#index.find(bytes);
    if (slot < 0) return false;
    this.intend(bytes);
    this.writeSlot(segment, slot, FREE_SLOT);
    try {
      unlinkSync(this.blockPath(uid));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
        this.#diagnostics.next({
          kind: 'warning',
          namespace: this.#names.namespace,
          uid,
          message: `Could not unlink the block of worker ${uid}`,
          error,
        });
      }
    }
    this.journal()?.append(JOURNAL_DROPPED, bytes, slot, undefined, reason);
    return true;
  }

  /**
   * Records (under the lock) which worker's block the section is about to
   * create, or to free and unlink (see {@link NamespaceLock.intend}).
   * @param uid The worker's 16 UUID bytes.
   */
  intend(uid: Buffer): void {
    this.#lock.intend(uid);
  }

  /** Closes the segment and the journal (the next section re-opens them). */
  forget(): void {
    this.#segment?.close();
    this.#segment = undefined;
    this.#journal?.close();
    this.#journal = undefined;
  }

  /** Closes everything this writer holds, wool's lock file included (a kept lock is released). Idempotent. */
  close(): void {
    this.#holding.close();
    this.forget();
    this.#lock.close();
  }

  /**
   * Under the lock, with the slot table read: if the last holder died in
   * the middle of a section (its intent record is still there), unlinks the
   * block it named unless a slot holds that worker (then the block is
   * live), and clears the record.
   */
  #recoverIntent(): void {
    const intent = this.#lock.takeIntent();
    if (intent === undefined) return;
    if (this.#index.find(intent) < 0) {
      const uid = slotUid(intent, 0);
      try {
        unlinkSync(this.blockPath(uid));
        this.#diagnostics.next({
          kind: 'recovered',
          namespace: this.#names.namespace,
          uid,
          message:
            `Removed the orphan block of worker ${uid}, left by a lock holder that died between its block and its ` +
            `slot`,
        });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      }
    }
  }

  /**
   * The segment the name points at now (under the lock), with its slot
   * table read — unless the lock was kept since the last section and the
   * segment is the same (then the table held is current); `SegmentNotReady`
   * while its header is missing.
   */
  #currentSegment(create: boolean, kept: boolean): SegmentFile | undefined {
    const path = this.#names.segmentPath;
    if (this.#segment !== undefined && !this.#segment.isAt(path)) {
      this.#segment.close();
      this.#segment = undefined;
    }
    this.#segmentReopened = this.#segment === undefined;
    if (this.#segment === undefined) {
      this.#index.reset();
      // The notification directory and file are checked (and opened)
      // before anything is written: unsafe ones refuse the change whole.
      if (create) openNotify(this.#names);
      let segment = SegmentFile.open(path, true, Math.max(this.#settings.capacity, MAX_READ_CAPACITY));
      if (segment === undefined && create) {
        segment = SegmentFile.create(path, this.#settings.capacity);
        if (segment !== undefined) recordSegmentOwner(this.#names, segment.ino);
        else segment = SegmentFile.open(path, true, Math.max(this.#settings.capacity, MAX_READ_CAPACITY));
      }
      this.#segment = segment;
    }
    if (this.#segment === undefined) return undefined;
    if (kept && !this.#segmentReopened) return this.#segment;
    const capacity = this.#segment.capacity();
    const problem = this.#segment.problem;
    if (capacity === undefined && problem?.kind === 'too-large') {
      throw new SegmentTooLargeError(path, this.#names.namespace, problem.capacity, this.#segment.maxCapacity);
    }
    // Not ready (a creator is still writing the header): retry outside the lock.
    if (capacity === undefined) throw new SegmentNotReady();
    const length = SLOT_SIZE * capacity;
    if (this.#table.length < length) this.#table = Buffer.alloc(length);
    this.#segment.readTable(this.#table, capacity);
    this.#index.sync(this.#table, length);
    return this.#segment;
  }
}
