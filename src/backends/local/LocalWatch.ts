import type { Subject } from 'rxjs';
import type { DiscoverySink } from '../../discovery/DiscoverySink.js';
import { errorMessage } from '../../discovery/errorMessage.js';
import type { DiscoveryDiagnostic } from '../../discovery/types.js';
import { BlockReader, MAX_OPEN_BLOCKS } from './block/BlockReader.js';
import { JOURNAL_DROPPED, type JournalRecord } from './journal/Journal.js';
import { JournalFollower } from './journal/JournalFollower.js';
import { MAX_READ_CAPACITY, slotUid } from './segment/slotTable.js';
import { MAX_READ_BLOCK } from './block/blockFile.js';
import { leaveNamespace } from './namespaceCleanup.js';
import { NotifyWatcher } from './notify/notify.js';
import { Reclaimer, type Withdraw } from './Reclaimer.js';
import { SlotMirror, VERIFY_SLOTS, type MirrorRead } from './segment/SlotMirror.js';
import type { LocalSettings } from './types.js';
import type { LocalNames } from './names/localNames.js';
import { BlockSweep, WorkerBlocks, type WorkerEntry } from './block/WorkerBlocks.js';
import { writerBusy } from './lock/namespaceLock.js';

/**
 * Shortest time between two reads of the whole namespace for notifications
 * no journal record explains (wool's, or a flood of touches), in ms: a
 * tenth of the poll interval, from 10 to 100 ms. Later ones within it are
 * coalesced into one read at its end.
 */
function foreignGap(pollInterval: number): number {
  return pollInterval > 0 ? Math.min(100, Math.max(10, pollInterval / 10)) : 100;
}

/**
 * One subscription's watch of a local namespace: the loop that composes
 * the pieces. Finding what changed costs what changed, not what exists:
 *
 * - {@link NotifyWatcher}: wake-ups (the notification file, the poll timer),
 *   one scan per turn of the event loop (a lone notification's at once,
 *   while the last scan left every record matched: see `#ours`);
 * - {@link JournalFollower}: woolrx's publishes, replayed in order from the
 *   journal — one read of its head, one per record, each decoded once — and
 *   the matching of notifications with records that tells wool's apart;
 * - {@link SlotMirror}: the copy of the slot table, kept current from the
 *   records' slots, so that reading the segment (after a wool notification,
 *   a poll tick, an overrun) finds only the slots others changed;
 * - {@link WorkerBlocks} over a {@link BlockReader}: the blocks (torn-read
 *   detection, descriptor cache) and, in the same entries, what the
 *   subscriber was told; {@link BlockSweep}: blocks compared a few per turn;
 * - {@link Reclaimer}: liveness, and reclaiming dead workers through the
 *   publishers' withdraw path;
 * - {@link leaveNamespace}: the last one out's cleanup on stop.
 *
 * No lock is taken to read: the journal is applied first, and woolrx
 * publishers write a record only once the segment shows its change, so what
 * is then read from the segment is as new as the records applied, or newer;
 * a changed block is taken only if no record was appended meanwhile.
 * @internal
 */
export class LocalWatch {
  readonly #names: LocalNames;
  readonly #settings: LocalSettings;
  readonly #diagnostics: Subject<DiscoveryDiagnostic>;
  readonly #sink: DiscoverySink;
  readonly #wake: NotifyWatcher;
  readonly #journal: JournalFollower;
  readonly #mirror: SlotMirror;
  readonly #workers: WorkerBlocks;
  readonly #sweep = new BlockSweep();
  readonly #reclaimer: Reclaimer;
  /** Reports of what is wrong with the segment, rate-limited. */
  readonly #segmentReports = new ReportLimiter();
  /** Reports of a corrupt journal, rate-limited. */
  readonly #journalReports = new ReportLimiter();
  /** Reports of journal records the segment does not show, rate-limited. */
  readonly #recordReports = new ReportLimiter();
  /** Reports of failed scans, rate-limited. */
  readonly #scanReports = new ReportLimiter();
  #stopped = false;
  readonly #foreignGap: number;
  /** When the namespace was last read whole for a notification no record explains. */
  #foreignAt = -Infinity;
  /** Runs the coalesced read of such notifications (see #foreign). */
  #foreignTimer: NodeJS.Timeout | undefined;
  /** The last scan failed: compare everything at the next. */
  #full = false;
  /**
   * The last scan ended with every notification it took explained by a
   * woolrx record: the next one may be scanned at once (see NotifyWatcher).
   */
  #ours = false;
  /** Entries found by the current scan (liveness checks them at once); emptied, not re-allocated, per scan. */
  readonly #fresh: WorkerEntry[] = [];
  /** Counts the reconciles: each marks the entries it reads ({@link WorkerEntry.readIn}). */
  #reconciles = 0;
  /** Whether an entry was read by the current reconcile (its sweep skips it). */
  readonly #readNow = (entry: WorkerEntry): boolean => entry.readIn === this.#reconciles;

  /**
   * @param diagnostics Where malformed blocks, warnings and recoveries are reported.
   * @param sink Receives the events.
   * @param withdraw Withdraws dead workers (the reclaims), through the publishers' withdraw path.
   */
  constructor(
    names: LocalNames,
    settings: LocalSettings,
    diagnostics: Subject<DiscoveryDiagnostic>,
    sink: DiscoverySink,
    withdraw: Withdraw,
  ) {
    this.#names = names;
    this.#settings = settings;
    this.#foreignGap = foreignGap(settings.pollInterval);
    this.#diagnostics = diagnostics;
    this.#sink = sink;
    this.#wake = new NotifyWatcher(
      names,
      settings.pollInterval,
      () => this.#scan(),
      () => this.#ours && this.#journal.announced,
    );
    const rxLockPath = names.rxLockPath;
    this.#journal = new JournalFollower(names.journalPath, this.#shows, () => writerBusy(rxLockPath));
    this.#mirror = new SlotMirror(names.segmentPath, Math.max(settings.capacity, MAX_READ_CAPACITY));
    const schedule = (): void => this.#wake.schedule();
    const reader = new BlockReader(names.shmDir, MAX_OPEN_BLOCKS, Math.max(settings.blockSize, MAX_READ_BLOCK));
    this.#workers = new WorkerBlocks(names.namespace, reader, this.#journal, schedule, sink, diagnostics);
    const workers = this.#workers;
    const registrant = (uid: string): number => workers.registrant(uid);
    this.#reclaimer = new Reclaimer(
      names.namespace,
      settings,
      diagnostics,
      workers.told,
      reader,
      withdraw,
      schedule,
      registrant,
    );
  }

  /** Starts watching and reads the current state, synchronously: the initial `worker-added` burst. */
  start(): void {
    this.#wake.start();
    this.#fresh.length = 0;
    this.#reconcile('all', false, true);
    if (this.#left) return;
    this.#reclaimer.check(this.#fresh);
    this.#fresh.length = 0;
    // Read from the journal's head: every record up to it is accounted for.
    this.#ours = !this.#full;
  }

  /** Closes watchers, timer and descriptors; then cleans up the namespace if it is left empty. Idempotent. */
  stop(): void {
    if (this.#stopped) return;
    this.#stopped = true;
    clearTimeout(this.#foreignTimer);
    this.#wake.close();
    this.#journal.close();
    this.#workers.close();
    this.#sweep.clear();
    this.#mirror.close();
    leaveNamespace(this.#names, this.#settings, (message, error) => this.#warn(message, error));
  }

  /**
   * Stopped, or the subscriber is gone (it unsubscribed during the initial
   * burst, before `stop()` could be called): do no more work.
   */
  get #left(): boolean {
    return this.#stopped || this.#sink.closed;
  }

  /** Reports (rate-limited) what a read of the segment found wrong with it (see {@link MirrorRead.problem}). */
  #reportSegment(read: MirrorRead): void {
    if (read.healthy) {
      this.#segmentReports.clear();
      return;
    }
    const problem = read.problem;
    if (problem === undefined) return;
    const instant = problem.kind !== 'too-large';
    if (
      !this.#segmentReports.seen(`${problem.kind}:${problem.capacity}`, instant ? 2 : 1, instant ? TRANSIENT_GRACE : 0)
    ) {
      return;
    }
    const why = {
      'no-header': 'it is shorter than its 16-byte header',
      'no-magic': 'its WLD1 header is missing (destroyed, or still being created)',
      'zero-capacity': 'its header claims a capacity of 0',
      'too-large':
        `its header claims a capacity of ${problem.capacity} slots, more than the ${problem.maxCapacity} read at ` +
        `most`,
      truncated: `it is ${problem.size} bytes, too short for its ${problem.capacity} slots (truncated)`,
    }[problem.kind];
    const kept = read.held ? '; the workers last read from it are kept until it can be read again' : '';
    this.#diagnostics.next({
      kind: 'malformed-record',
      namespace: this.#names.namespace,
      message:
        `Segment ${this.#names.segmentPath} of namespace ${JSON.stringify(this.#names.namespace)} is not usable: ` +
        `${why}${kept}`,
    });
  }

  /**
   * Whether the segment shows a journal record's change: a record is a
   * hint (another process's word), the slots and blocks are the truth.
   * Not while the segment cannot be read (the copy is held): the record
   * waits, then is skipped, and the first read whole compares everything.
   */
  readonly #shows = (record: JournalRecord, index: number, count: number): boolean => {
    if (this.#mirror.held) return false;
    const holds = this.#mirror.holds(record.slot, record.uid, index === 0, count - index);
    return record.type === JOURNAL_DROPPED ? !holds : holds;
  };

  /**
   * After each replay: reports (rate-limited) a corrupt journal and the records not applied
   * because the segment does not show them, and makes the next read of the
   * segment compare every uid; asks for another turn when the replay
   * stopped short of the head.
   */
  #afterFollow(): void {
    const journal = this.#journal;
    const problem = journal.takeProblem();
    // A follow that found nothing wrong ends the run of sightings: a journal
    // met twice while being created, minutes apart, is not one lasting problem.
    if (problem === undefined) this.#journalReports.clear();
    else if (
      this.#journalReports.seen(problem.key, problem.transient ? 2 : 1, problem.transient ? TRANSIENT_GRACE : 0)
    ) {
      this.#diagnostics.next({
        kind: 'malformed-record',
        namespace: this.#names.namespace,
        message:
          `${problem.message} (namespace ${JSON.stringify(this.#names.namespace)}); finding the changes in the ` +
          `segment instead`,
      });
    }
    const skipped = journal.takeSkipped();
    // Not a busy loop: the records that explain it are a publisher's
    // critical section away (a descheduled publisher's may take longer:
    // then it is asked less often).
    if (journal.behind) setTimeout(this.#schedule, journal.retryDelay);
    const first = skipped[0];
    if (first === undefined) return;
    this.#mirror.invalidate();
    // While the segment cannot be read, no record can match it: that is reported as the segment's problem.
    if (this.#mirror.held || !this.#recordReports.seen('record')) return;
    const uid = slotUid(first.uid, 0);
    const what = first.type === JOURNAL_DROPPED ? 'dropped from' : 'in';
    const more = skipped.length > 1 ? ` (and ${skipped.length - 1} more)` : '';
    this.#diagnostics.next({
      kind: 'malformed-record',
      namespace: this.#names.namespace,
      uid,
      message:
        `Journal record ${first.seq} of namespace ${JSON.stringify(this.#names.namespace)} (worker ${uid} ${what} ` +
        `slot ${first.slot ?? 'unknown'}) does not match the segment${more}: not applied (a journal record is a ` +
        `hint; the slots and blocks are the truth); reading the segment instead`,
    });
  }

  #warn(message: string, error: unknown): void {
    this.#diagnostics.next({ kind: 'warning', namespace: this.#names.namespace, message, error });
  }

  #scan(): void {
    if (this.#stopped) return;
    try {
      this.#scanOnce();
      this.#scanReports.clear();
    } catch (error) {
      if (this.#scanReports.seen(errorMessage(error))) {
        this.#warn(
          `Scanning namespace ${JSON.stringify(this.#names.namespace)} failed; retrying on the next change`,
          error,
        );
      }
      this.#full = true;
    }
  }

  #scanOnce(): void {
    let full = this.#full;
    this.#full = false;
    this.#ours = false;
    const { events, poll, dirChanged, segmentMoved } = this.#wake.take();
    if (dirChanged && this.#wake.recheckDir()) full = true;
    const fresh = this.#fresh;
    fresh.length = 0;
    // The fast path: woolrx's publishes, replayed in order from the journal.
    if (!this.#journal.follow(this.#applyRecord)) full = true;
    this.#afterFollow();
    if (this.#left) return;
    const ours = this.#journal.match(events, poll);
    if (!ours && (full || poll || this.#foreign())) full = true;
    // The slow path: the segment itself (wool's changes, segment replaced or
    // removed, journal overrun, fallback poll).
    if (full || poll || segmentMoved || this.#mirror.stale || this.#workers.pendingCount > 0) {
      this.#reconcile(full ? 'all' : poll ? 'poll' : 'changed', full || segmentMoved, false, poll);
      if (this.#left) return;
    }
    const more = this.#sweep.next(this.#current, this.#compare);
    if (this.#left) return;
    if (more) this.#wake.schedule();
    // Reclaiming goes through the segment: not while it cannot be read (the workers kept wait for it).
    if (!this.#mirror.held) this.#reclaimer.check(fresh);
    fresh.length = 0;
    this.#ours = ours && !full;
  }

  /**
   * A notification no journal record explains: whether to read the whole
   * namespace now — at most once per gap; a later one within the gap is
   * coalesced into one read at its end, so a flood of touches costs a few
   * reads a second, not one per touch.
   */
  #foreign(): boolean {
    const now = performance.now();
    const wait = this.#foreignAt + this.#foreignGap - now;
    if (wait <= 0) {
      this.#foreignAt = now;
      return true;
    }
    this.#foreignTimer ??= setTimeout(() => {
      this.#foreignTimer = undefined;
      this.#foreignAt = performance.now();
      this.#full = true;
      this.#wake.schedule();
    }, wait);
    return false;
  }

  readonly #schedule = (): void => this.#wake.schedule();

  // The sweep's callbacks, bound once (a scan allocates no closures).
  /** The entry of the uid in a slot of the mirror, if known: the poll's round-robin goes by slot. */
  readonly #slotEntry = (slot: number): WorkerEntry | undefined => {
    const uid = this.#mirror.uidAt(slot);
    return uid === undefined ? undefined : this.#workers.get(uid);
  };
  readonly #current = (entry: WorkerEntry): boolean => this.#workers.get(entry.uid) === entry;
  readonly #compare = (entry: WorkerEntry): boolean => {
    this.#workers.recheck(entry);
    return !this.#left;
  };

  /** {@link LocalWatch#apply}, bound once (a scan allocates no closures). */
  readonly #applyRecord = (record: JournalRecord): boolean => this.#apply(record, undefined);

  /**
   * Applies one journal record: the mirror's slot, then the worker.
   * @param noted Collects the uid of every record applied, when given.
   */
  #apply(record: JournalRecord, noted: Set<string> | undefined): boolean {
    const uid = slotUid(record.uid, 0);
    noted?.add(uid);
    this.#mirror.apply(record.slot, record.uid, uid, record.type !== JOURNAL_DROPPED);
    const workers = this.#workers;
    let entry = workers.get(uid);
    if (record.type === JOURNAL_DROPPED) {
      if (entry !== undefined) workers.drop(entry, record.reason);
      return !this.#left;
    }
    if (entry === undefined) {
      entry = workers.add(uid);
      this.#fresh.push(entry);
    }
    if (record.seeBlock || record.record === undefined) workers.refresh(entry);
    else workers.accept(entry, record.record);
    return !this.#left;
  }

  /**
   * Brings the workers in line with the segment: entries whose uid left the
   * slot table are dropped, uids new to it are read from their blocks, and
   * blocks are queued for comparison (`all`: every one; `poll`: a
   * round-robin slice; `changed`: only new and pending ones, at once).
   *
   * The segment is read between two replays of the journal. What it shows
   * may be newer than the records applied before it (publishers keep
   * writing meanwhile, and applying a backlog takes time: each record's
   * event runs the subscriber's code), so its verdict on a uid is taken
   * only if no record of that uid came after the read's first replay:
   * otherwise the records, applied in order, are as new as the read or
   * newer. Taking the read's verdict first would drop a worker and then
   * replay an older record of it (a re-add), re-emitting a worker that is
   * gone.
   * @param blocks Which blocks to compare.
   * @param recheck Check that the segment is still the one the name points at.
   * @param initial The initial state: start replay at the journal's head.
   * @param verify The fallback poll's safety net: check a slice of the
   * mirror against the table read, and compare every uid when the workers
   * known and the uids in the mirror differ in number — so that a
   * subscriber that ever diverged from the segment re-converges.
   */
  #reconcile(blocks: 'all' | 'poll' | 'changed', recheck: boolean, initial = false, verify = false): void {
    const journal = this.#journal;
    journal.follow(this.#applyRecord, initial, true);
    this.#afterFollow();
    if (this.#left) return;
    const mirror = this.#mirror;
    const workers = this.#workers;
    const read = mirror.read(recheck, verify ? VERIFY_SLOTS : 0);
    this.#reportSegment(read);
    // Workers and mirror agree but for the slots that changed, unless the
    // mirror was stale (or they do not agree in number): then compare every uid.
    const { changed } = read;
    const stale = read.stale || (verify && !read.held && mirror.size !== workers.size);
    // The first read after the segment could not be read: changes made
    // meanwhile were not followed, so every block is compared too.
    if (read.resumed) blocks = 'all';
    // Records appended since the read's first replay: their uids are the
    // journal's to report, not the read's.
    const journaled = new Set<string>();
    const replayed = journal.follow((record) => this.#apply(record, journaled));
    this.#afterFollow();
    // Stopped short of the head: records between the first replay and the
    // read are not applied yet, so the read's verdicts wait for them.
    const behind = journal.behind;
    if (this.#left) return;
    if (!replayed) {
      // Records lost (overrun): the next scan reconciles everything again.
      this.#full = true;
      this.#wake.schedule();
    }
    // Distinct: each entry is marked as it is taken (see WorkerEntry.readIn).
    const touched: WorkerEntry[] = [];
    const stamp = ++this.#reconciles;
    let deferred = false;
    for (const uid of stale ? [...workers.uids()] : changed) {
      const entry = workers.get(uid);
      if (entry === undefined || mirror.has(uid)) continue;
      if (behind || journaled.has(uid)) {
        deferred = true;
        continue;
      }
      workers.drop(entry);
      if (this.#left) return;
    }
    for (const uid of stale ? mirror.uids() : changed) {
      if (workers.get(uid) !== undefined || !mirror.has(uid)) continue;
      if (behind || journaled.has(uid)) {
        deferred = true;
        continue;
      }
      const entry = workers.add(uid);
      this.#fresh.push(entry);
      entry.readIn = stamp;
      touched.push(entry);
    }
    // A uid the journal and the read disagree on (the record of the change
    // the read showed is still to come, or the read was older than the
    // records), or records the copy could not follow: the next scan reads
    // the segment again and compares every uid.
    // While the replay waits for a record to be explained (behind), its
    // retry timer brings that scan: not every turn of the event loop for as
    // long as the record's writer is descheduled.
    if (deferred) mirror.invalidate();
    if (mirror.stale && !behind) this.#wake.schedule();
    for (const entry of workers.takePending()) {
      if (entry.readIn !== stamp && mirror.has(entry.uid)) {
        entry.readIn = stamp;
        touched.push(entry);
      }
    }
    for (const entry of touched) {
      workers.recheck(entry);
      if (this.#left) return;
    }
    // Known blocks are compared by the sweep, a slice per turn of the event
    // loop, each after the journal: never behind it (a block read is as new
    // as the records applied, or newer, and an older record's bytes are
    // never re-emitted after it).
    if (blocks === 'all') this.#sweep.all(workers.values(), this.#readNow);
    else if (blocks === 'poll') this.#sweep.poll(this.#slotEntry, mirror.slots, this.#readNow);
  }
}

/** How long the same problem stays quiet after it was reported, in ms. */
export const REPORT_INTERVAL = 60_000;

/**
 * How long a problem that may be an instant's state (a header being
 * written by its creator) must last before it is reported, in ms. Its
 * creator writes it microseconds after making the file, under the lock;
 * a creator descheduled on a loaded host may take milliseconds, so two
 * sightings in a row are not proof enough.
 */
export const TRANSIENT_GRACE = 1_000;

/**
 * Rate-limits a subscriber's reports of a lasting problem (a segment
 * without its header, an unsafe object): a problem is reported once it was
 * seen `strikes` times in a row, over at least `lasting` ms, then not again
 * for {@link REPORT_INTERVAL} ms while it lasts; a new problem (another
 * key) is reported at once. "In a row": until {@link ReportLimiter.clear},
 * which its user calls when it finds the thing healthy.
 * @internal
 */
export class ReportLimiter {
  #key: string | undefined;
  #seen = 0;
  #firstSeen = 0;
  #reportedAt = -Infinity;

  /**
   * Notes a problem seen now.
   * @param key What the problem is (e.g. `segment:no-magic`).
   * @param strikes How many sightings in a row before reporting.
   * @param lasting How long since the first of them, in ms, before reporting
   * ({@link TRANSIENT_GRACE}: not for an instant's state).
   * @param now `performance.now()`.
   * @returns Whether to report it now.
   */
  seen(key: string, strikes = 1, lasting = 0, now = performance.now()): boolean {
    if (key !== this.#key) {
      this.#key = key;
      this.#seen = 0;
      this.#firstSeen = now;
      this.#reportedAt = -Infinity;
    }
    this.#seen += 1;
    if (this.#seen < strikes || now - this.#firstSeen < lasting) return false;
    if (now - this.#reportedAt < REPORT_INTERVAL) return false;
    this.#reportedAt = now;
    return true;
  }

  /** The problem is gone: the next one is reported afresh. */
  clear(): void {
    this.#key = undefined;
    this.#seen = 0;
    this.#reportedAt = -Infinity;
  }
}
