import { closeSync, constants, fstatSync, openSync, readFileSync, readSync, statSync, unlinkSync, watch, type FSWatcher } from 'node:fs';
import { join } from 'node:path';
import type { Subject } from 'rxjs';
import { decodeWorker } from '../../codec/decodeWorker.js';
import type { DiscoveryDiagnostic } from '../../discovery/types.js';
import { discoveryEvent } from '../../events/discoveryEvent.js';
import type { DiscoveryEvent } from '../../events/types.js';
import { sameWorker } from '../../model/sameWorker.js';
import type { WorkerInfo } from '../../model/types.js';
import { acquireNamespaceLock, removeLockParent, tryNamespaceLock } from './acquireNamespaceLock.js';
import { blockName } from './blockName.js';
import { cleanupNamespace } from './cleanupNamespace.js';
import { findSlot } from './findSlot.js';
import { Journal, JOURNAL_DROPPED, type JournalRecord } from './Journal.js';
import { FREE_SLOT, LENGTH_PREFIX, SLOT_SIZE } from './layout.js';
import { SegmentFile } from './SegmentFile.js';
import { slotUid } from './slotUid.js';
import { ensureNotifyDir, touchNotify } from './touchNotify.js';
import type { LocalNames, LocalSettings } from './types.js';
import { uidBytes } from './uidBytes.js';

/** Block descriptors one subscription keeps open; beyond, blocks are opened per read. */
const MAX_OPEN_BLOCKS = 4096;
/** Blocks re-read per fallback poll tick (round-robin), so a tick stays short (~ms) at any size. */
const POLL_BLOCKS = 64;
/** Slot-table regions at most this large are compared slot by slot. */
const LEAF_BYTES = 256;

/** What a subscription knows about one uid found in the slot table. */
interface Entry {
  readonly uid: string;
  /** The block's path, computed on first use (a SHA-256: not needed to replay a journal record). */
  path: string | undefined;
  fd: number | undefined;
  size: number;
  /** Last stable record bytes read (length prefix included). */
  bytes: Buffer | undefined;
  /** Whether `bytes` decoded to `worker`. */
  ok: boolean;
  /** Last metadata emitted; `undefined` until `worker-added`. */
  worker: WorkerInfo | undefined;
  /** Bytes last reported as malformed, not to report them twice. */
  reported: Buffer | undefined;
}

type ReadResult = Buffer | 'missing' | 'empty' | 'torn' | 'bad-length';

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * One subscription to a local namespace: watches, replays, reconciles, emits.
 *
 * It watches the notification directory only (every publisher touches
 * `notify` after each change). Finding what changed costs what changed, not
 * what exists:
 * - woolrx publishes are replayed from the journal: one read of its head,
 *   one read per record, each record decoded once;
 * - a notification that finds the journal unchanged came from wool (which
 *   writes through mmap and keeps no journal): then, and on the fallback
 *   poll, the subscriber reconciles with the segment — the slot table in one
 *   positioned read, compared with the previous one by bisection (native
 *   `memcmp`) so only changed slots are looked at, and blocks compared byte
 *   for byte with the last bytes seen (read twice, to reject a torn read),
 *   decoded only if they differ. The poll compares a round-robin slice of
 *   blocks per tick.
 * @internal
 */
export class LocalSubscription {
  readonly #names: LocalNames;
  readonly #settings: LocalSettings;
  readonly #diagnostics: Subject<DiscoveryDiagnostic>;
  readonly #emit: (event: DiscoveryEvent) => void;
  readonly #closed: () => boolean;

  #stopped = false;
  #segment: SegmentFile | undefined;
  /** Slot table as last seen (16 * #slotsSeen bytes in use). */
  #prev: Buffer = Buffer.alloc(0);
  #cur: Buffer = Buffer.alloc(0);
  #prevLength = 0;
  /** Mirror of the slot table as last read: the uid in each slot. */
  #slotUids: (string | undefined)[] = [];
  /** How many slots hold each uid, per that mirror. */
  readonly #present = new Map<string, number>();
  #journal: Journal | undefined;
  /** Next journal sequence number to apply. */
  #journalSeq = 0;
  #journalEpoch: bigint | undefined;
  readonly #entries = new Map<string, Entry>();
  readonly #pending = new Set<Entry>();
  #openBlocks = 0;
  #readA: Buffer = Buffer.alloc(64 * 1024);
  #readB: Buffer = Buffer.alloc(64 * 1024);

  #scheduled = false;
  #fullCompare = true;
  #pollCompare = false;
  #pollCursor = 0;
  #checkDir = false;
  #checkSegment = true;
  #notified = false;
  /** Journal head seen at the last notification. */
  #headAtNotify = -1;
  /** When each pid was last seen alive (liveness is re-checked once per sweep period). */
  readonly #aliveAt = new Map<number, number>();
  #lastSweep = 0;
  #reclaiming = false;

  #dirWatcher: FSWatcher | undefined;
  #dirIno = -1;
  #poll: NodeJS.Timeout | undefined;

  /**
   * @param names The namespace's names.
   * @param settings Resolved options.
   * @param diagnostics Where malformed blocks and recoveries are reported.
   * @param emit Receives each event.
   * @param closed Tells whether the consumer has gone (stop emitting).
   */
  constructor(
    names: LocalNames,
    settings: LocalSettings,
    diagnostics: Subject<DiscoveryDiagnostic>,
    emit: (event: DiscoveryEvent) => void,
    closed: () => boolean,
  ) {
    this.#names = names;
    this.#settings = settings;
    this.#diagnostics = diagnostics;
    this.#emit = emit;
    this.#closed = closed;
  }

  /** Starts watching and scans once, synchronously: the initial `worker-added` burst. */
  start(): void {
    this.#watchDir();
    if (this.#settings.pollInterval > 0) {
      this.#poll = setInterval(() => {
        this.#pollCompare = true;
        this.#checkDir = true;
        this.#checkSegment = true;
        this.#schedule();
      }, this.#settings.pollInterval);
    }
    // The initial burst: the segment's current state (under the lock, so the
    // journal head read with it marks exactly where replay starts).
    const fresh = new Set<Entry>();
    this.#fullCompare = false;
    this.#reconcile('all', fresh, true);
    this.#headAtNotify = this.#journalSeq;
    this.#checkLiveness(fresh);
  }

  /** Closes watchers, timer and descriptors; then cleans up the namespace if it is left empty. */
  stop(): void {
    if (this.#stopped) return;
    this.#stopped = true;
    this.#dirWatcher?.close();
    if (this.#poll !== undefined) clearInterval(this.#poll);
    for (const entry of this.#entries.values()) this.#closeBlock(entry);
    this.#entries.clear();
    this.#segment?.close();
    this.#segment = undefined;
    this.#cleanup();
  }

  #cleanup(): void {
    const names = this.#names;
    const settings = this.#settings;
    const run = (release: () => void): void => {
      let gone = false;
      try {
        gone = cleanupNamespace(names);
      } catch (error) {
        this.#warn('Cleaning up the namespace failed', error);
      } finally {
        release();
      }
      if (gone) removeLockParent(names);
    };
    try {
      const release = tryNamespaceLock({ ...names, ...settings });
      if (release !== undefined) return run(release);
    } catch (error) {
      return this.#warn('Cleaning up the namespace failed', error);
    }
    // Busy: retry in the background, without keeping the process alive.
    const timer = setTimeout(() => {
      acquireNamespaceLock({ ...names, ...settings }).then(run, () => undefined);
    }, 5);
    timer.unref();
  }

  #watchDir(): void {
    ensureNotifyDir(this.#names);
    this.#dirWatcher?.close();
    this.#dirIno = statSync(this.#names.notifyDir).ino;
    this.#dirWatcher = watch(this.#names.notifyDir, { persistent: true }, (type, filename) => {
      if (filename === 'notify') {
        this.#notified = true;
        if (type === 'rename') this.#checkSegment = true;
      } else if (type === 'rename') {
        this.#checkDir = true;
      }
      this.#schedule();
    });
    this.#dirWatcher.on('error', () => {
      this.#checkDir = true;
      this.#schedule();
    });
  }

  #schedule(): void {
    if (this.#scheduled || this.#stopped) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      this.#scan();
    });
  }

  #warn(message: string, error: unknown): void {
    this.#diagnostics.next({ kind: 'warning', namespace: this.#names.namespace, message, error });
  }

  #send(type: DiscoveryEvent['type'], worker: WorkerInfo): void {
    if (this.#stopped || this.#closed()) return;
    this.#emit(discoveryEvent(type, worker));
  }

  #scan(): void {
    if (this.#stopped) return;
    try {
      this.#scanOnce();
    } catch (error) {
      this.#warn(`Scanning namespace ${JSON.stringify(this.#names.namespace)} failed; retrying on the next change`, error);
      this.#fullCompare = true;
    }
  }

  #scanOnce(): void {
    let full = this.#fullCompare;
    this.#fullCompare = false;
    const poll = this.#pollCompare;
    this.#pollCompare = false;
    if (this.#checkDir) {
      this.#checkDir = false;
      if (statSync(this.#names.notifyDir, { throwIfNoEntry: false })?.ino !== this.#dirIno) {
        this.#watchDir();
        full = true;
      }
    }
    const fresh = new Set<Entry>();
    // The fast path: woolrx's publishes, replayed in order from the journal.
    if (!this.#applyJournal(fresh)) full = true;
    if (this.#stopped) return;
    if (this.#notified) {
      // Every woolrx publish appends to the journal before it notifies. A
      // notification that finds the journal where the previous one left it
      // came from wool, which only writes the segment and its blocks (through
      // mmap, invisible to inotify): look at every block.
      this.#notified = false;
      if (this.#journalSeq === this.#headAtNotify) full = true;
      this.#headAtNotify = this.#journalSeq;
    }
    // The slow path: the segment itself (wool's changes, segment replaced or
    // removed, journal overrun, fallback poll), under the lock if free, so
    // that segment and journal agree.
    if (full || poll || this.#checkSegment || this.#pending.size > 0) {
      this.#reconcile(full ? 'all' : poll ? 'poll' : 'changed', fresh);
    }
    if (this.#stopped) return;
    this.#checkLiveness(fresh);
  }

  /**
   * Applies the journal records written since the last call.
   * @returns `false` when records were lost (overrun): the caller reconciles.
   */
  #applyJournal(fresh: Set<Entry>, skip = false, verify = false): boolean {
    let journal = this.#journal;
    // The journal is removed only together with the segment, whose removal
    // triggers a reconciliation: that is when to check it is still current.
    if (journal !== undefined && verify && !journal.isLinked()) {
      journal.close();
      journal = this.#journal = undefined;
    }
    if (journal === undefined) {
      journal = this.#journal = Journal.openForRead(this.#names.journalPath);
      if (journal === undefined) return true;
      if (journal.epoch !== this.#journalEpoch) {
        // A journal created (or re-created) since we last looked: all of it is news.
        this.#journalEpoch = journal.epoch;
        this.#journalSeq = 0;
      }
    }
    const head = journal.head();
    if (skip) {
      this.#journalSeq = head;
      return true;
    }
    const from = this.#journalSeq;
    if (head === from) return true;
    this.#journalSeq = head;
    if (head < from || head - from > journal.count) return false;
    for (let seq = from; seq < head; seq += 1) {
      const record = journal.read(seq);
      if (record === undefined) return false;
      this.#applyRecord(record, fresh);
      if (this.#stopped) return true;
    }
    // Records overwritten while we read them cannot be trusted. While the
    // writer is rewriting slot `from` with record `from + count`, the head
    // still reads `from + count`: so equality already means "maybe torn".
    return journal.head() - from < journal.count;
  }

  #applyRecord(record: JournalRecord, fresh: Set<Entry>): void {
    const uid = slotUid(record.uid, 0);
    let entry = this.#entries.get(uid);
    if (record.type === JOURNAL_DROPPED) {
      if (entry !== undefined) this.#drop(entry);
      return;
    }
    if (entry === undefined) {
      entry = this.#entry(uid);
      fresh.add(entry);
    }
    if (record.seeBlock || record.record === undefined) this.#refresh(entry);
    else this.#accept(entry, record.record);
  }

  #entry(uid: string): Entry {
    const entry: Entry = {
      uid,
      path: undefined,
      fd: undefined,
      size: 0,
      bytes: undefined,
      ok: false,
      worker: undefined,
      reported: undefined,
    };
    this.#entries.set(uid, entry);
    return entry;
  }

  /** The path of an entry's block. */
  #path(entry: Entry): string {
    entry.path ??= join(this.#names.shmDir, blockName(entry.uid));
    return entry.path;
  }

  /**
   * Brings the workers in line with the segment: entries whose uid left the
   * slot table are dropped, uids new to it are read from their blocks, and
   * blocks are compared (`all`: every one; `poll`: a round-robin slice;
   * `changed`: new and pending ones).
   */
  #reconcile(blocks: 'all' | 'poll' | 'changed', fresh: Set<Entry>, initial = false): void {
    let release: (() => void) | undefined;
    try {
      // Read-only: woolrx's lock alone keeps journal and segment in step;
      // wool's flock is left free (wool writes no journal).
      release = tryNamespaceLock({ ...this.#names, ...this.#settings, woolFlock: false });
    } catch {
      release = undefined;
    }
    try {
      this.#applyJournal(fresh, initial, true);
      if (this.#stopped) return;
      this.#readSlots();
      const touched = new Set<Entry>();
      for (const entry of [...this.#entries.values()]) {
        if (!this.#present.has(entry.uid)) {
          this.#drop(entry);
          if (this.#stopped) return;
        }
      }
      for (const uid of this.#present.keys()) {
        if (this.#entries.has(uid)) continue;
        const entry = this.#entry(uid);
        fresh.add(entry);
        touched.add(entry);
      }
      if (blocks === 'all') {
        for (const entry of this.#entries.values()) touched.add(entry);
      } else if (blocks === 'poll') {
        const all = [...this.#entries.values()];
        const count = Math.min(all.length, POLL_BLOCKS);
        for (let i = 0; i < count; i += 1) {
          const entry = all[(this.#pollCursor + i) % all.length];
          if (entry !== undefined) touched.add(entry);
        }
        this.#pollCursor = all.length === 0 ? 0 : (this.#pollCursor + count) % all.length;
      }
      for (const entry of this.#pending) if (this.#present.has(entry.uid)) touched.add(entry);
      this.#pending.clear();
      for (const entry of touched) {
        // A block unlinked and re-created under the same name (wool: a drop
        // and a re-add) is a new file: reopen it by name.
        if (entry.fd !== undefined && fstatSync(entry.fd).nlink === 0) this.#closeBlock(entry);
        this.#refresh(entry);
        if (this.#stopped) return;
      }
    } finally {
      release?.();
    }
  }

  /** Reads the slot table and updates the mirror (#slotUids, #present) from the slots that changed. */
  #readSlots(): void {
    const path = this.#names.segmentPath;
    if (this.#checkSegment) {
      this.#checkSegment = false;
      if (this.#segment !== undefined && !this.#segment.isAt(path)) {
        this.#segment.close();
        this.#segment = undefined;
      }
    }
    this.#segment ??= SegmentFile.open(path, false);
    const capacity = this.#segment?.capacity() ?? 0;
    const length = SLOT_SIZE * capacity;
    const span = Math.max(length, this.#prevLength);
    if (this.#cur.length < span) {
      const grown = Buffer.alloc(span);
      this.#prev.copy(grown);
      this.#prev = grown;
      this.#cur = Buffer.alloc(span);
      this.#slotUids.length = span / SLOT_SIZE;
    }
    if (capacity > 0) this.#segment?.readTable(this.#cur, capacity);
    this.#cur.fill(0, length, span);
    this.#diffSlots(0, span, (slot) => {
      const offset = slot * SLOT_SIZE;
      const old = this.#slotUids[slot];
      if (old !== undefined) {
        const count = (this.#present.get(old) ?? 1) - 1;
        if (count > 0) this.#present.set(old, count);
        else this.#present.delete(old);
      }
      if (this.#cur.compare(FREE_SLOT, 0, SLOT_SIZE, offset, offset + SLOT_SIZE) === 0) {
        this.#slotUids[slot] = undefined;
        return;
      }
      const uid = slotUid(this.#cur, offset);
      this.#slotUids[slot] = uid;
      this.#present.set(uid, (this.#present.get(uid) ?? 0) + 1);
    });
    const swap = this.#prev;
    this.#prev = this.#cur;
    this.#cur = swap;
    this.#prevLength = length;
  }

  /** Liveness: fresh workers now, everyone once per sweep period. */
  #checkLiveness(fresh: ReadonlySet<Entry>): void {
    if (!this.#settings.liveness) return;
    const now = performance.now();
    const period = this.#settings.pollInterval || 1000;
    const sweepAll = now - this.#lastSweep >= period;
    if (sweepAll) {
      this.#lastSweep = now;
      this.#aliveAt.clear();
    }
    const dead: Entry[] = [];
    for (const entry of sweepAll ? this.#entries.values() : fresh) {
      const worker = entry.worker;
      if (worker === undefined || worker.pid <= 0) continue;
      const seen = this.#aliveAt.get(worker.pid);
      if (seen !== undefined && (now - seen < period || seen >= this.#lastSweep)) continue;
      if (isAlive(worker.pid)) {
        this.#aliveAt.set(worker.pid, now);
      } else {
        this.#aliveAt.delete(worker.pid);
        dead.push(entry);
      }
    }
    if (dead.length > 0) this.#reclaim(dead);
  }

  /** Calls `changed` with each slot whose bytes differ between #prev and #cur in [start, end). */
  #diffSlots(start: number, end: number, changed: (slot: number) => void): void {
    if (end <= start || this.#cur.compare(this.#prev, start, end, start, end) === 0) return;
    if (end - start <= LEAF_BYTES) {
      for (let offset = start; offset < end; offset += SLOT_SIZE) {
        if (this.#cur.compare(this.#prev, offset, offset + SLOT_SIZE, offset, offset + SLOT_SIZE) !== 0) {
          changed(offset / SLOT_SIZE);
        }
      }
      return;
    }
    const middle = start + Math.floor((end - start) / (2 * SLOT_SIZE)) * SLOT_SIZE;
    this.#diffSlots(start, middle, changed);
    this.#diffSlots(middle, end, changed);
  }

  #drop(entry: Entry): void {
    this.#closeBlock(entry);
    this.#entries.delete(entry.uid);
    this.#pending.delete(entry);
    if (entry.worker !== undefined) this.#send('worker-dropped', entry.worker);
  }

  #closeBlock(entry: Entry): void {
    if (entry.fd === undefined) return;
    try {
      closeSync(entry.fd);
    } catch {
      // Already closed.
    }
    entry.fd = undefined;
    this.#openBlocks -= 1;
  }

  /** Re-reads one block; emits `worker-added`/`worker-updated` if it decodes to something new. */
  #refresh(entry: Entry): void {
    const record = this.#read(entry);
    if (typeof record === 'string') {
      this.#pending.add(entry);
      if (record === 'bad-length') {
        this.#malformed(entry, Buffer.from(this.#readA.subarray(0, LENGTH_PREFIX)), `its length prefix exceeds the ${entry.size}-byte block`);
      }
      return;
    }
    this.#accept(entry, record);
  }

  /** Takes new record bytes (length prefix included) for a worker: decodes them if they changed, emits what changed. */
  #accept(entry: Entry, record: Buffer): void {
    if (entry.bytes !== undefined && entry.bytes.equals(record)) {
      if (!entry.ok) this.#pending.add(entry);
      return;
    }
    entry.bytes = record;
    entry.ok = false;
    let worker: WorkerInfo;
    try {
      worker = decodeWorker(record.subarray(LENGTH_PREFIX));
    } catch (error) {
      this.#pending.add(entry);
      this.#malformed(entry, record, error instanceof Error ? error.message : String(error), error);
      return;
    }
    if (worker.uid !== entry.uid) {
      this.#pending.add(entry);
      this.#malformed(entry, record, `it holds worker ${worker.uid}`);
      return;
    }
    entry.ok = true;
    entry.reported = undefined;
    const previous = entry.worker;
    entry.worker = worker;
    if (previous === undefined) this.#send('worker-added', worker);
    else if (!sameWorker(previous, worker)) this.#send('worker-updated', worker);
  }

  #malformed(entry: Entry, bytes: Buffer, why: string, error?: unknown): void {
    if (entry.reported?.equals(bytes) === true) return;
    entry.reported = bytes;
    this.#diagnostics.next({
      kind: 'malformed-record',
      namespace: this.#names.namespace,
      uid: entry.uid,
      message: `Skipped the block of worker ${entry.uid} (${this.#path(entry)}): ${why}; retrying on the next scan`,
      ...(error === undefined ? {} : { error }),
    });
  }

  #grow(size: number): void {
    if (this.#readA.length >= size) return;
    this.#readA = Buffer.alloc(size);
    this.#readB = Buffer.alloc(size);
  }

  /** Reads a block's record twice and returns it only if both reads agree. */
  #read(entry: Entry): ReadResult {
    let fd = entry.fd;
    let transient = false;
    if (fd === undefined) {
      try {
        fd = openSync(this.#path(entry), constants.O_RDONLY);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'missing';
        throw error;
      }
      entry.size = 0; // learnt from the first read below
      if (this.#openBlocks < MAX_OPEN_BLOCKS) {
        entry.fd = fd;
        this.#openBlocks += 1;
      } else {
        transient = true;
      }
    }
    try {
      let first: number;
      if (entry.size === 0) {
        // Size unknown (just opened): a read into the large scratch buffer
        // returns it, saving an fstat; only a larger block needs one.
        first = readSync(fd, this.#readA, 0, this.#readA.length, 0);
        if (first === this.#readA.length) {
          const size = fstatSync(fd).size;
          if (size > first) {
            this.#grow(size);
            first = readSync(fd, this.#readA, 0, size, 0);
          }
        }
        entry.size = first;
      } else {
        this.#grow(entry.size);
        first = readSync(fd, this.#readA, 0, entry.size, 0);
      }
      if (first < LENGTH_PREFIX) return 'empty';
      const length = this.#readA.readUInt32LE(0);
      if (length === 0) return 'empty';
      const end = LENGTH_PREFIX + length;
      if (end > first) return 'bad-length';
      const second = readSync(fd, this.#readB, 0, end, 0);
      if (second !== end || this.#readA.compare(this.#readB, 0, end, 0, end) !== 0) return 'torn';
      return Buffer.from(this.#readA.subarray(0, end));
    } finally {
      if (transient) closeSync(fd);
    }
  }

  /** Frees the slots and blocks of workers whose process is gone, under the lock, then notifies. */
  #reclaim(dead: readonly Entry[]): void {
    if (this.#reclaiming) return;
    this.#reclaiming = true;
    const names = this.#names;
    const candidates = dead.map((entry) => ({ uid: entry.uid, path: this.#path(entry), pid: entry.worker?.pid ?? 0 }));
    acquireNamespaceLock({ ...names, ...this.#settings })
      .then((release) => {
        const reclaimed: typeof candidates = [];
        try {
          const segment = SegmentFile.open(names.segmentPath, true);
          if (segment === undefined) return reclaimed;
          try {
            const capacity = segment.capacity();
            if (capacity === undefined) return reclaimed;
            const table = Buffer.alloc(SLOT_SIZE * capacity);
            segment.readTable(table, capacity);
            let journal: Journal | undefined;
            try {
              for (const candidate of candidates) {
                const bytes = uidBytes(candidate.uid);
                const slot = findSlot(table, table.length, bytes);
                if (slot < 0 || this.#blockPid(candidate.path) !== candidate.pid || isAlive(candidate.pid)) continue;
                segment.writeSlot(slot, FREE_SLOT);
                try {
                  unlinkSync(candidate.path);
                } catch {
                  // Already gone.
                }
                journal ??= Journal.openForWrite(names.journalPath, Math.max(1020, this.#settings.blockSize - LENGTH_PREFIX));
                journal.append(JOURNAL_DROPPED, bytes, undefined);
                reclaimed.push(candidate);
              }
            } finally {
              journal?.close();
            }
          } finally {
            segment.close();
          }
          if (reclaimed.length > 0) touchNotify(names);
        } finally {
          release();
        }
        return reclaimed;
      })
      .then(
        (reclaimed) => {
          for (const { uid, pid } of reclaimed) {
            this.#diagnostics.next({
              kind: 'recovered',
              namespace: names.namespace,
              uid,
              message: `Worker ${uid} is gone (pid ${pid} no longer exists); reclaimed its slot and block`,
            });
          }
        },
        (error: unknown) => this.#warn('Reclaiming the slots of dead workers failed; retrying on the next sweep', error),
      )
      .finally(() => {
        this.#reclaiming = false;
        this.#schedule();
      });
  }

  /** The pid recorded in a block now, or -1. */
  #blockPid(path: string): number {
    try {
      const bytes = readFileSync(path);
      const length = bytes.readUInt32LE(0);
      return decodeWorker(bytes.subarray(LENGTH_PREFIX, LENGTH_PREFIX + length)).pid;
    } catch {
      return -1;
    }
  }
}
