import { checkPublish } from '../../discovery/checkPublish.js';
import { unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Subject } from 'rxjs';
import { encodeWorker } from '../../codec/encodeWorker.js';
import type { DiscoveryDiagnostic, WorkerPublisher } from '../../discovery/types.js';
import { CapacityExhaustedError } from '../../errors/CapacityExhaustedError.js';
import { WoolrxError } from '../../errors/WoolrxError.js';
import { WorkerNotFoundError } from '../../errors/WorkerNotFoundError.js';
import type { DiscoveryEventType } from '../../events/types.js';
import type { WorkerInfo } from '../../model/types.js';
import { acquireNamespaceLock, removeLockParent, type NamespaceLockOptions } from './acquireNamespaceLock.js';
import { blockName } from './blockName.js';
import { cleanupNamespace, recordSegmentOwner } from './cleanupNamespace.js';
import { findSlot } from './findSlot.js';
import { Journal, JOURNAL_ADDED, JOURNAL_DROPPED, JOURNAL_UPDATED } from './Journal.js';
import { FREE_SLOT, LENGTH_PREFIX, SLOT_SIZE } from './layout.js';
import { SegmentFile } from './SegmentFile.js';
import { touchNotify } from './touchNotify.js';
import type { LocalNames, LocalSettings } from './types.js';
import { uidBytes } from './uidBytes.js';
import { WoolFlock } from './WoolFlock.js';
import { writeBlock } from './writeBlock.js';


/** Thrown inside a critical section when the segment has no `WLD1` header yet. */
class NotReady extends Error {}

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

/**
 * Publishes workers into a local namespace. Made by
 * {@link localDiscovery}'s `publisher()`; see the contract in
 * {@link WorkerPublisher}.
 *
 * Each publish takes the namespace lock (woolrx's lock, then wool's
 * `flock`), re-opens the segment if its name now points elsewhere, reads
 * the slot table, writes the block, the slot and the journal record, and
 * releases the lock — all synchronously — then touches the notification
 * file. Operations of one publisher run one at a time, in call order.
 * @internal
 */
export class LocalPublisher implements WorkerPublisher {
  readonly namespace: string;
  readonly #names: LocalNames;
  readonly #settings: LocalSettings;
  readonly #diagnostics: Subject<DiscoveryDiagnostic>;
  readonly #registered = new Set<string>();
  #segment: SegmentFile | undefined;
  #journal: Journal | undefined;
  /** wool's lock file, kept open between publishes (re-validated at each lock); closed by `close()`. */
  readonly #woolFlock: WoolFlock;
  readonly #lockOptions: NamespaceLockOptions;
  /** Some publish took the lock (and so may have created wool's lock file or the lock directory). */
  #everLocked = false;
  /** The segment was (re)opened by the current critical section. */
  #segmentReopened = true;
  #table: Buffer = Buffer.alloc(0);
  #queue: Promise<unknown> = Promise.resolve();
  #closed = false;
  #closing: Promise<void> | undefined;

  /**
   * @param names The namespace's names.
   * @param settings Resolved options.
   * @param diagnostics Where to report what is not an error of the caller.
   */
  constructor(names: LocalNames, settings: LocalSettings, diagnostics: Subject<DiscoveryDiagnostic>) {
    this.namespace = names.namespace;
    this.#names = names;
    this.#settings = settings;
    this.#diagnostics = diagnostics;
    this.#woolFlock = new WoolFlock(names.lockPath);
    this.#lockOptions = { ...names, ...settings, woolFlock: this.#woolFlock };
  }

  /** `true` once `close()` has been called. */
  get closed(): boolean {
    return this.#closed;
  }

  /**
   * Publishes one change; see {@link WorkerPublisher.publish}.
   * @param type What happened to the worker.
   * @param worker The worker's metadata.
   * @returns Resolves once the change is in shared memory and subscribers were notified.
   */
  async publish(type: DiscoveryEventType, worker: WorkerInfo): Promise<void> {
    const valid = checkPublish(this.namespace, this.#closed, type, worker);
    const payload = type === 'worker-dropped' ? undefined : encodeWorker(valid);
    return this.#enqueue(() =>
      this.#locked((segment) => this.#apply(segment, type, valid, payload), type === 'worker-added'),
    );
  }

  /**
   * Withdraws every worker this publisher registered (slots zeroed, blocks
   * unlinked), then, if the namespace is left empty, removes what woolrx
   * created for it. Idempotent.
   * @returns Resolves once done.
   */
  close(): Promise<void> {
    this.#closed = true;
    this.#closing ??= this.#enqueue(async () => {
      try {
        await this.#withdrawAll();
      } finally {
        this.#woolFlock.close();
      }
    });
    return this.#closing;
  }

  /** Same as `close()`. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  /** close(): withdraws everything, then cleans up if this was the last one out. */
  async #withdrawAll(): Promise<void> {
    // Nothing to withdraw, and nothing created (not even wool's lock file).
    if (this.#registered.size === 0 && this.#segment === undefined && !this.#everLocked) return;
    let gone = false;
    await this.#locked((segment) => {
      if (segment !== undefined) {
        // One notification per journal record: subscribers match each
        // notification with a record to tell woolrx's from wool's.
        for (const uid of this.#registered) if (this.#withdraw(segment, uid)) touchNotify(this.#names);
      }
      this.#registered.clear();
      this.#segment?.close();
      this.#segment = undefined;
      this.#journal?.close();
      this.#journal = undefined;
      // Holding both locks: may also unlink wool's lock file.
      gone = cleanupNamespace(this.#names);
      return false;
    }, false);
    if (gone) removeLockParent(this.#names);
  }

  #enqueue<T>(task: () => Promise<T>): Promise<T> {
    const result = this.#queue.then(task);
    this.#queue = result.catch(() => undefined);
    return result;
  }

  /**
   * Runs `section` under the namespace lock with the current segment
   * (created when `create` and missing), retrying while the segment is not
   * ready; then touches the notification file if `section` changed anything.
   */
  async #locked(section: (segment: SegmentFile | undefined) => boolean, create = true): Promise<void> {
    const deadline = performance.now() + this.#settings.lockTimeout;
    for (;;) {
      const release = await acquireNamespaceLock(this.#lockOptions);
      this.#everLocked = true;
      let notReady = false;
      let changed = false;
      try {
        changed = section(this.#currentSegment(create));
      } catch (error) {
        if (!(error instanceof NotReady)) throw error;
        notReady = true;
      } finally {
        release();
      }
      if (notReady) {
        if (performance.now() >= deadline) {
          throw new WoolrxError(
            'WOOLRX_SEGMENT_NOT_READY',
            `Segment ${this.#names.segmentPath} of namespace ${JSON.stringify(this.namespace)} has no WLD1 header after ${this.#settings.lockTimeout} ms`,
          );
        }
        await sleep(2);
        continue;
      }
      // A section that changed something appended exactly one journal
      // record: one record, one notification (see LocalSubscription). The
      // touch wakes every subscriber, wool's and woolrx's; it comes last,
      // after releasing the lock, so that a woken subscriber finds the work
      // done and the lock free (the file is on the temp directory's file
      // system, often a journaling disk one: ~0.02-0.1 ms a write, more
      // during a commit — not to be paid while holding the lock). The file
      // is removed only with the segment: it is re-checked only if the
      // segment had to be (re)opened.
      if (changed) touchNotify(this.#names, this.#segmentReopened);
      return;
    }
  }

  /** The segment the name points at now (under the lock); `NotReady` while its header is missing. */
  #currentSegment(create: boolean): SegmentFile | undefined {
    const path = this.#names.segmentPath;
    if (this.#segment !== undefined && !this.#segment.isAt(path)) {
      this.#segment.close();
      this.#segment = undefined;
    }
    this.#segmentReopened = this.#segment === undefined;
    if (this.#segment === undefined) {
      let segment = SegmentFile.open(path, true);
      if (segment === undefined && create) {
        segment = SegmentFile.create(path, this.#settings.capacity);
        if (segment !== undefined) recordSegmentOwner(this.#names, segment.ino);
        else segment = SegmentFile.open(path, true);
      }
      this.#segment = segment;
    }
    if (this.#segment === undefined) return undefined;
    const capacity = this.#segment.capacity();
    // Not ready (a creator is still writing the header): retry outside the lock.
    if (capacity === undefined) throw new NotReady();
    if (this.#table.length < SLOT_SIZE * capacity) this.#table = Buffer.alloc(SLOT_SIZE * capacity);
    this.#segment.readTable(this.#table, capacity);
    return this.#segment;
  }

  #apply(segment: SegmentFile | undefined, type: DiscoveryEventType, worker: WorkerInfo, payload: Uint8Array | undefined): boolean {
    const uid = worker.uid;
    if (type === 'worker-dropped') {
      const changed = segment !== undefined && this.#withdraw(segment, uid);
      this.#registered.delete(uid);
      return changed;
    }
    if (payload === undefined) throw new WorkerNotFoundError(uid, this.namespace);
    if (segment === undefined) {
      if (type === 'worker-updated') throw new WorkerNotFoundError(uid, this.namespace);
      throw new NotReady(); // unlinked between create and open: retry
    }
    const capacity = segment.capacity() ?? 0;
    const length = SLOT_SIZE * capacity;
    const bytes = uidBytes(uid);
    const path = join(this.#names.shmDir, blockName(uid));
    const slot = findSlot(this.#table, length, bytes);
    if (slot >= 0) {
      writeBlock(path, payload, this.#settings.blockSize, uid, false);
      if (type === 'worker-added') this.#registered.add(uid);
      this.#journalFor()?.append(type === 'worker-added' ? JOURNAL_ADDED : JOURNAL_UPDATED, bytes, slot, payload);
      return true;
    }
    if (type === 'worker-updated') throw new WorkerNotFoundError(uid, this.namespace);
    const free = findSlot(this.#table, length, FREE_SLOT);
    if (free < 0) throw new CapacityExhaustedError(capacity, this.namespace);
    writeBlock(path, payload, this.#settings.blockSize, uid, true);
    let slotWritten = false;
    try {
      // Block, slot, then the record: a subscriber applying the record
      // finds the segment already showing it.
      segment.writeSlot(free, bytes);
      slotWritten = true;
      this.#journalFor()?.append(JOURNAL_ADDED, bytes, free, payload);
    } catch (error) {
      if (slotWritten) segment.writeSlot(free, FREE_SLOT);
      unlinkQuietly(path);
      throw error;
    }
    this.#registered.add(uid);
    return true;
  }

  /**
   * The journal (under the lock), re-opened or created if the last one out
   * removed it; `undefined` if the file there has another format (then
   * subscribers find this publisher's changes by scanning).
   */
  #journalFor(): Journal | undefined {
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

  /** Frees the worker's slot and unlinks its block, then journals the drop; `false` if it was not registered. */
  #withdraw(segment: SegmentFile, uid: string): boolean {
    const capacity = segment.capacity() ?? 0;
    const bytes = uidBytes(uid);
    const slot = findSlot(this.#table, SLOT_SIZE * capacity, bytes);
    if (slot < 0) return false;
    segment.writeSlot(slot, FREE_SLOT);
    this.#table.fill(0, slot * SLOT_SIZE, slot * SLOT_SIZE + SLOT_SIZE);
    try {
      unlinkQuietly(join(this.#names.shmDir, blockName(uid)));
    } catch (error) {
      this.#diagnostics.next({
        kind: 'warning',
        namespace: this.namespace,
        uid,
        message: `Could not unlink the block of worker ${uid}`,
        error,
      });
    }
    this.#journalFor()?.append(JOURNAL_DROPPED, bytes, slot, undefined);
    return true;
  }
}
