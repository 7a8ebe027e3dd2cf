import { Journal, type JournalFault, type JournalRecord } from './Journal.js';

/**
 * How long a record the segment does not show waits for the records that
 * explain it before the lock is asked whether one may still come, in ms.
 */
const SETTLE = 50;

/**
 * How often such a record is checked again once past {@link SETTLE}, in ms
 * (1 ms before): its writer's notification, sent once the record is
 * written, wakes the subscriber anyway; this only paces the asking.
 */
const SETTLED_RETRY = 10;

/** Something wrong with a journal, to report (rate-limited by `key`). @internal */
export interface JournalProblem {
  /** What kind of problem (the same key is reported at most once a minute). */
  readonly key: string;
  /** May be an instant's state (a journal being created): reported only if it lasts. */
  readonly transient: boolean;
  readonly message: string;
}

/**
 * A subscriber's reading position in woolrx's journal of a namespace (see
 * {@link Journal}), and the matching of notifications with records that
 * tells woolrx's notifications from wool's.
 *
 * woolrx publishes are replayed from the journal: one read of its head, one
 * read per record, in order, so every add, update and drop is seen with the
 * metadata of that step. A subscriber more than the ring's length behind
 * (an overrun) cannot replay: {@link JournalFollower.follow} says so and the
 * caller reconciles with the segment instead.
 * @internal
 */
export class JournalFollower {
  readonly #path: string;
  #journal: Journal | undefined;
  /** Next sequence number to apply. */
  #seq = 0;
  #epoch: bigint | undefined;
  /** Records up to this sequence number have been matched with a notification each. */
  #matched = 0;
  /** The head at the previous poll tick (a record still unmatched a tick later lost its notification). */
  #matchedMark = 0;
  readonly #check: ((record: JournalRecord, index: number, count: number) => boolean) | undefined;
  /** Records the last {@link JournalFollower.follow} did not apply: the segment does not show them. */
  #skipped: JournalRecord[] = [];
  /** Whether a woolrx writer may be in the middle of a change now (see #settled). */
  readonly #busy: (() => boolean) | undefined;
  /** The first record the segment did not show, and since when (see #verify). */
  #blockedSeq = -1;
  #blockedSince = 0;
  /**
   * The lock was found free while record `#clearedSeq` was blocked, with the head then at
   * `#clearedHead` (see #settled).
   */
  #clearedSeq = -1;
  #clearedHead = 0;
  #behind = false;
  /** What the last follow found wrong with the journal (see {@link JournalFollower.takeProblem}). */
  #problem: JournalProblem | undefined;
  /** The journal was found unusable: the next one opened is followed again (see {@link JournalFollower.follow}). */
  #lost = false;
  readonly #unusable = (fault: JournalFault): void => {
    if (fault.code === 'another-format') return;
    this.#lost = true;
    this.#problem = {
      key: `header:${fault.message}`,
      // No header yet may be an instant's state (a journal being created).
      transient: fault.code === 'no-magic' || fault.code === 'short',
      message: `Journal ${this.#path} is not used: ${fault.message}`,
    };
  };

  /**
   * @param check Whether the segment shows a record's change (its slot holds
   * the worker after an add or update, no longer holds it after a drop): a
   * record is a hint, the segment is the truth. Without it every record is
   * applied. A batch of `count` records is checked in order, `index` 0
   * first: what the segment was read to answer it may answer the batch's
   * later records (all of them were written before it was read).
   * @param busy Whether a woolrx writer holds the namespace lock now (so a
   * change may be half done: its slot written, its record still to come).
   * Without it a record unexplained for {@link SETTLE} ms and past which the
   * head did not move is skipped.
   */
  constructor(
    path: string,
    check?: (record: JournalRecord, index: number, count: number) => boolean,
    busy?: () => boolean,
  ) {
    this.#path = path;
    this.#check = check;
    this.#busy = busy;
  }

  /**
   * The last {@link JournalFollower.follow} stopped short of the head: a
   * record did not match the segment while the journal moved on (the
   * records after it may explain it). Follow again on the next turn.
   */
  get behind(): boolean {
    return this.#behind;
  }

  /** When {@link JournalFollower.behind}: how long to wait before following again, in ms. */
  get retryDelay(): number {
    return performance.now() - this.#blockedSince < SETTLE ? 1 : SETTLED_RETRY;
  }

  /**
   * What the last {@link JournalFollower.follow} found wrong with the
   * journal — a header that is not a journal's or changed under it, a head
   * that no record backs — or `undefined`. Such a journal is not followed:
   * the caller finds the changes in the segment, as it finds wool's.
   * @returns The problem.
   */
  takeProblem(): JournalProblem | undefined {
    const problem = this.#problem;
    this.#problem = undefined;
    return problem;
  }

  /**
   * The records the last {@link JournalFollower.follow} left unapplied
   * because the segment does not show them (forged, or corrupt); the list
   * starts empty again. The caller reports them and reads the segment.
   * @returns The records.
   */
  takeSkipped(): JournalRecord[] {
    const skipped = this.#skipped;
    if (skipped.length > 0) this.#skipped = [];
    return skipped;
  }

  /**
   * Whether every record applied was matched with its notification: a
   * notification now announces a record not read yet (or is wool's).
   */
  get announced(): boolean {
    return this.#matched >= this.#seq;
  }

  /** The next sequence number to apply. */
  get seq(): number {
    return this.#seq;
  }

  /**
   * Reads the records written since the last call and hands them to
   * `apply`, in order — none before all of them were read and found intact.
   * @param apply Applies one record; returns `false` to stop (the
   * subscriber left).
   * @param skip The initial state: only take the current head as the start
   * (the notifications of earlier records are not ours to count).
   * @param verify Re-check that the journal held is still linked (after the
   * segment may have been removed: the journal goes with it).
   * @returns `false` when records were lost (overrun), or not applied
   * because the segment does not show them ({@link JournalFollower.takeSkipped}):
   * the caller reconciles with the segment.
   */
  follow(apply: (record: JournalRecord) => boolean, skip = false, verify = false): boolean {
    this.#behind = false;
    this.#problem = undefined;
    let journal = this.#journal;
    // The journal is removed only together with the segment, whose removal
    // triggers a reconciliation: that is when to check it is still current.
    if (journal !== undefined && verify && !journal.isLinked()) {
      journal.close();
      journal = this.#journal = undefined;
    }
    let resumed = false;
    if (journal === undefined) {
      journal = this.#journal = Journal.openForRead(this.#path, this.#unusable);
      if (journal === undefined) return true;
      resumed = this.#lost;
      this.#lost = false;
      if (journal.epoch !== this.#epoch) {
        // A journal created (or re-created) since we last looked: all of it
        // is news, and each of its records is owed a notification.
        this.#epoch = journal.epoch;
        this.#blockedSeq = -1;
        this.#clearedSeq = -1;
        this.#seq = 0;
        this.#matched = 0;
        this.#matchedMark = 0;
      }
    }
    const head = journal.head();
    const changed = journal.headerChanged();
    if (changed !== undefined) {
      this.#unusable(changed);
      this.close();
      return false;
    }
    if (resumed) {
      // Followed again after it could not be used (damaged, or met while
      // being created): the notifications of the records written meanwhile
      // were taken for wool's (each read the segment), so none of them is
      // owed one still — otherwise the next notifications, wool's among
      // them, would be taken for theirs. One still on its way is then read
      // as wool's: a read of the segment more, nothing missed.
      this.#matched = Math.max(this.#matched, head);
      this.#matchedMark = this.#matched;
    }
    if (skip) {
      this.#seq = head;
      this.#matched = head;
      this.#matchedMark = head;
      return true;
    }
    const from = this.#seq;
    if (head === from) return true;
    this.#seq = head;
    if (head < from || head - from > journal.count) {
      // A subscriber more than a ring behind (an overrun) is normal: the
      // ring then holds the last `count` records. A head that went back, or
      // whose ring does not hold them, is corrupt. (The second oldest is
      // checked: a writer overwrites it only after moving the head on, which
      // the second read of the head would show.)
      const oldest = head - journal.count + (journal.count > 1 ? 1 : 0);
      if (
        head < from ||
        !Number.isSafeInteger(head) ||
        (journal.read(oldest) === undefined && journal.head() === head)
      ) {
        const why = head < from ? `${from} were already read` : `record ${oldest} is not in the ring`;
        this.#problem = {
          key: 'head',
          transient: false,
          message: `Journal ${this.#path} has a corrupt head: it claims ${head} records written, but ${why}`,
        };
      }
      return false;
    }
    const records: JournalRecord[] = [];
    if (!journal.readRange(from, head, records)) return false;
    // Records overwritten while we read them cannot be trusted, so none is
    // applied before this check. While the writer is rewriting slot `from`
    // with record `from + count`, the head still reads `from + count`: so
    // equality already means "maybe torn".
    if (journal.head() - from >= journal.count) return false;
    const { skipped, stop } = this.#verify(records, journal, head);
    for (const record of records) {
      if (record === stop) {
        // Not explained yet: resume from it (see #verify).
        this.#seq = record.seq;
        this.#behind = true;
        break;
      }
      if (skipped?.has(record) !== true && !apply(record)) break;
    }
    return skipped === undefined;
  }

  /**
   * Checks each uid's last record of a batch against the segment (earlier
   * ones are explained by the later: a worker added then dropped is in no
   * slot by now). A record the segment does not show may be explained by a
   * record not written yet (a publisher that freed the slot is about to
   * journal the drop): the replay stops before it and resumes from it
   * ({@link JournalFollower.behind}). It is skipped only once no record can
   * still explain it (see #settled), never on time alone: a publisher
   * descheduled between its slot and its record (a loaded machine) is
   * waited for, however long.
   */
  #verify(
    records: readonly JournalRecord[],
    journal: Journal,
    head: number,
  ): { skipped?: Set<JournalRecord>; stop?: JournalRecord | undefined } {
    const check = this.#check;
    if (check === undefined) return {};
    let last: Map<string, JournalRecord> | undefined;
    if (records.length > 1) {
      last = new Map();
      for (const record of records) last.set(record.uid.toString('latin1'), record);
    }
    let unexplained: Set<JournalRecord> | undefined;
    const count = last?.size ?? records.length;
    let index = 0;
    for (const record of last?.values() ?? records) {
      if (!check(record, index, count)) (unexplained ??= new Set()).add(record);
      index += 1;
    }
    if (unexplained === undefined) return {};
    const failed = unexplained;
    const first = records.find((record) => failed.has(record));
    if (first === undefined) return {};
    const now = performance.now();
    if (first.seq !== this.#blockedSeq) {
      this.#blockedSeq = first.seq;
      this.#blockedSince = now;
    }
    const settled = now - this.#blockedSince < SETTLE ? false : this.#settled(first, journal, head);
    if (settled === false) return { stop: first };
    let skipped = failed;
    let stop: JournalRecord | undefined;
    if (settled === 'first') {
      // Only `first` was known unexplained: the others wait their turn.
      skipped = new Set([first]);
      stop = records.find((record) => record !== first && failed.has(record));
    }
    this.#skipped.push(...skipped);
    return { skipped, stop };
  }

  /**
   * Whether a record the segment did not show (`first`, blocked since
   * {@link SETTLE} ms at least) can no longer be explained by a record still
   * to come. Every woolrx change writes its slot and appends its record
   * under the namespace lock: found free, the changes half done when the
   * record was checked are done, and their records are at most at the head
   * read after that. So it is settled when the lock is free and the head did
   * not move past the batch checked; or when the lock was found free before
   * while it was blocked, and this batch reaches the head read then (the
   * records that could explain it were all read, and did not).
   * @param first The first record the segment does not show.
   * @param journal The journal.
   * @param head The head this batch was read up to.
   * @returns `'all'`: no record of the batch the segment does not show can
   * be explained any more; `'first'`: `first` cannot (the others were
   * checked since the lock was found free); `false`: wait.
   */
  #settled(first: JournalRecord, journal: Journal, head: number): 'all' | 'first' | false {
    if (this.#clearedSeq === first.seq && head >= this.#clearedHead) return 'first';
    if (this.#busy?.() === true) return false;
    // Read after the lock was found free (the order matters).
    const now = journal.head();
    if (now === head) return 'all';
    this.#clearedSeq = first.seq;
    this.#clearedHead = now;
    return false;
  }

  /**
   * Tells woolrx's notifications from wool's.
   *
   * Every woolrx change appends one journal record, then touches `notify`
   * once: so each record is owed exactly one event, and an event with no
   * record left to match came from wool, which writes the segment and its
   * blocks through mmap (invisible to inotify) and keeps no journal. Merely
   * comparing journal heads cannot tell: a scan may already have applied a
   * record whose event is still on its way.
   *
   * inotify merges an event with an identical one at the end of the queue,
   * which would make two woolrx touches one event; the notification file is
   * watched too (see NotifyWatcher) so that they never are. A record whose
   * event never comes (lost, or merged while the file was not watched) is
   * written off at the next poll tick, with a sweep of every block.
   * @param events Notification events since the last call.
   * @param poll A poll tick came.
   * @returns `false` when some event is wool's (or a record's was lost):
   * every block must be compared.
   */
  match(events: number, poll: boolean): boolean {
    let ours = true;
    if (events > 0) {
      const matched = Math.min(events, Math.max(0, this.#seq - this.#matched));
      this.#matched += matched;
      ours = matched === events;
    }
    if (poll) {
      if (this.#matched < this.#matchedMark) {
        this.#matched = this.#seq;
        ours = false;
      }
      this.#matchedMark = this.#seq;
    }
    return ours;
  }

  /**
   * Whether records were appended since the last were applied. A block that
   * changed is taken only if not: otherwise it may be newer than records not
   * applied yet, which would then re-emit older metadata.
   * @returns `true` when the journal moved (or one appeared).
   */
  moved(): boolean {
    const journal = this.#journal;
    if (journal !== undefined) return journal.head() !== this.#seq;
    // None open: one appeared (it will be applied first), or there is none
    // usable (missing, or of another format: nothing to wait for).
    const appeared = Journal.openForRead(this.#path);
    appeared?.close();
    return appeared !== undefined;
  }

  /** Closes the journal. Idempotent; a later `follow` re-opens it. */
  close(): void {
    this.#journal?.close();
    this.#journal = undefined;
  }
}
