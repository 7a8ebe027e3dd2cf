import type { Subject } from 'rxjs';
import { encodeWorker } from '../../codec/encodeWorker.js';
import { PublisherBase } from '../../discovery/PublisherBase.js';
import type { DiscoveryDiagnostic } from '../../discovery/types.js';
import { CapacityExhaustedError } from './segment/segmentErrors.js';
import { WorkerNotFoundError } from '../../errors/WorkerNotFoundError.js';
import type { DiscoveryEventType } from '../../events/types.js';
import type { WorkerInfo } from '../../model/types.js';
import { removeLockParent } from './lock/namespaceLock.js';
import { cleanupNamespace } from './namespaceCleanup.js';
import { isAlive } from './Reclaimer.js';
import { JOURNAL_ADDED, JOURNAL_UPDATED } from './journal/Journal.js';
import { FREE_SLOT, uidBytes } from './segment/slotTable.js';
import { NamespaceWriter, SegmentNotReady } from './NamespaceWriter.js';
import type { SegmentFile } from './segment/SegmentFile.js';
import { touchNotify } from './notify/notify.js';
import type { LocalSettings } from './types.js';
import type { LocalNames } from './names/localNames.js';
import { UnsafeObjectError } from './safe-fs/UnsafeObjectError.js';
import { unlinkQuietly } from './safe-fs/safeFs.js';
import { writeBlock } from './block/blockFile.js';

/** An add or update, made ready before the lock is taken. */
interface Change {
  readonly type: 'worker-added' | 'worker-updated';
  readonly worker: WorkerInfo;
  /** The worker's record. */
  readonly payload: Uint8Array;
  /** Its uid's 16 bytes, as slots hold it. */
  readonly bytes: Buffer;
  /** Its block's path. */
  readonly path: string;
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
 * file (see {@link NamespaceWriter}).
 *
 * Ownership: this publisher owns the workers it registered (added while
 * absent: it created their block). A registration is identified by its
 * block's inode, since a refresh rewrites the block in place and a new
 * registration creates a new one; so `close()` withdraws a worker only if
 * its block is still the one this publisher created — not after another
 * process dropped and re-registered the uid.
 * @internal
 */
export class LocalPublisher extends PublisherBase {
  readonly #names: LocalNames;
  readonly #settings: LocalSettings;
  readonly #writer: NamespaceWriter;
  readonly #diagnostics: Subject<DiscoveryDiagnostic>;
  /**
   * uid → the registration this publisher owns: the inode of the block it
   * created, and the pid its registrant mark names (the pid last published).
   */
  readonly #registered = new Map<string, { ino: number; pid: number }>();
  /** The last pid warned about as not alive (not to warn for every publish of it). */
  #warnedPid = 0;

  /**
   * @param diagnostics Where to report what is not an error of the caller.
   */
  constructor(names: LocalNames, settings: LocalSettings, diagnostics: Subject<DiscoveryDiagnostic>) {
    super(names.namespace);
    this.#names = names;
    this.#settings = settings;
    this.#writer = new NamespaceWriter(names, settings, diagnostics);
    this.#diagnostics = diagnostics;
  }

  protected override apply(type: DiscoveryEventType, worker: WorkerInfo): Promise<void> {
    if (type === 'worker-dropped') {
      return this.#writer.locked((segment) => this.#withdraw(segment, worker.uid), false);
    }
    this.#checkPid(worker);
    // Everything that does not depend on the namespace is made before the
    // lock is taken: whatever runs under it, the publishers waiting pay too.
    const change: Change = {
      type,
      worker,
      payload: encodeWorker(worker),
      bytes: uidBytes(worker.uid),
      path: this.#writer.blockPath(worker.uid),
    };
    return this.#writer.locked((segment) => this.#change(segment, change), type === 'worker-added');
  }

  /**
   * Warns (once per pid in a row) when a worker names a pid that is not a
   * live process on this host: subscribers that check liveness (the
   * default) drop and reclaim it at once. The publish goes ahead: a pid of
   * another host's process is the caller's choice.
   */
  #checkPid(worker: WorkerInfo): void {
    const pid = worker.pid;
    if (pid <= 0 || pid === process.pid || pid === this.#warnedPid || isAlive(pid)) return;
    this.#warnedPid = pid;
    this.#diagnostics.next({
      kind: 'warning',
      namespace: this.#names.namespace,
      uid: worker.uid,
      message:
        `Worker ${worker.uid} names pid ${pid}, which is not a live process on this host: subscribers that check ` +
        `liveness (the default) will drop it and reclaim its slot at once`,
    });
  }

  /** close(): withdraws what this publisher owns, then cleans up if this was the last one out. */
  protected override async shutdown(): Promise<void> {
    try {
      // Nothing to withdraw, and nothing created (not even wool's lock file)
      // but perhaps the lock's directory, by an attempt that timed out.
      if (this.#registered.size === 0 && !this.#writer.touched) {
        removeLockParent(this.#names);
        return;
      }
      await this.#writer.locked(
        (segment) => {
          for (const [uid, { ino }] of this.#registered) {
            // Re-registered by someone else since (a new block): not ours any more.
            if (this.#writer.blockIno(uid) !== ino) continue;
            // Touched here, not after the release: the cleanup below may
            // remove the notification file, which a later touch would re-create.
            if (segment !== undefined && this.#writer.withdraw(segment, uid)) touchNotify(this.#names);
            // Its slot went with a segment removed (or replaced) from outside
            // (wool's owner unlinks its segment at exit): the block is still ours.
            else unlinkQuietly(this.#writer.blockPath(uid));
          }
          this.#registered.clear();
          this.#writer.forget();
          // Holding both locks: may also unlink wool's lock file.
          cleanupNamespace(this.#names);
          return 0;
        },
        false,
        false,
      );
      // Empty once released if the namespace (or just the journal) is gone; a no-op otherwise.
      removeLockParent(this.#names);
    } catch (error) {
      // An object of the namespace is unsafe (another user's, a symbolic
      // link): nothing of it was used, so nothing is left to withdraw.
      if (!(error instanceof UnsafeObjectError)) throw error;
      this.#diagnostics.next({
        kind: 'warning',
        namespace: this.namespace,
        message: `Closing the publisher left the namespace alone: ${error.message}`,
        error,
      });
    } finally {
      this.#writer.close();
    }
  }

  /** One withdrawal, under the lock. @returns The journal records appended (each owes a notification). */
  #withdraw(segment: SegmentFile | undefined, uid: string): number {
    const changed = segment !== undefined && this.#writer.withdraw(segment, uid);
    this.#registered.delete(uid);
    return changed ? 1 : 0;
  }

  /** One add or update, under the lock. @returns The journal records appended (each owes a notification). */
  #change(segment: SegmentFile | undefined, { type, worker, payload, bytes, path }: Change): number {
    const uid = worker.uid;
    const writer = this.#writer;
    if (segment === undefined) {
      if (type === 'worker-updated') throw new WorkerNotFoundError(uid, this.namespace);
      throw new SegmentNotReady(); // unlinked between create and open: retry
    }
    const slot = writer.findSlot(bytes);
    if (slot >= 0) {
      // Registered (by this publisher or another): refreshed in place, the
      // owner unchanged. (A missing block is re-created: a new identity for
      // the owner, if that is this publisher.) The registrant mark follows
      // the pid only the owner publishes: another publisher's pid changes
      // the metadata, not whose liveness the worker follows.
      const own = this.#registered.get(uid);
      const mark = { pid: worker.pid, ino: own !== undefined && own.pid !== worker.pid ? own.ino : undefined };
      const ino = writeBlock(path, payload, this.#settings.blockSize, uid, false, mark);
      if (own !== undefined) {
        own.pid = worker.pid;
        if (ino !== undefined) own.ino = ino;
      }
      writer.journal()?.append(type === 'worker-added' ? JOURNAL_ADDED : JOURNAL_UPDATED, bytes, slot, payload);
      return 1;
    }
    if (type === 'worker-updated') throw new WorkerNotFoundError(uid, this.namespace);
    const free = writer.firstFree();
    if (free < 0) throw new CapacityExhaustedError(segment.capacity() ?? 0, this.namespace);
    // Killed between the block and its slot, this publisher would leave an
    // orphan block: the intent record lets the next lock holder reclaim it.
    writer.intend(bytes);
    const ino = writeBlock(path, payload, this.#settings.blockSize, uid, true, { pid: worker.pid });
    let slotWritten = false;
    try {
      // Block, slot, then the record: a subscriber applying the record
      // finds the segment already showing it.
      writer.writeSlot(segment, free, bytes);
      slotWritten = true;
      writer.journal()?.append(JOURNAL_ADDED, bytes, free, payload);
    } catch (error) {
      if (slotWritten) writer.writeSlot(segment, free, FREE_SLOT);
      unlinkQuietly(path);
      throw error;
    }
    // Registered while absent: this publisher owns it.
    if (ino !== undefined) this.#registered.set(uid, { ino, pid: worker.pid });
    return 1;
  }
}
