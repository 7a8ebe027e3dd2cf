import { setTimeout as sleep } from 'node:timers/promises';

/**
 * How long a writer may keep the namespace lock after a section for the
 * next one, in ms (see {@link LockHolding}): a burst of publishes pays the
 * lock, the path checks and the slot-table read once per this long instead
 * of once per publish. wool's own publishers retry a busy lock every
 * millisecond.
 * @internal
 */
export const LOCK_LINGER_MS = 1;

/**
 * A writer that has held the namespace lock this long in a row (kept, or
 * taken again within {@link LOCK_RETAKE_GAP_MS} of letting it go) leaves it
 * free for {@link LOCK_PAUSE_MS} before taking it again: wool's publishers
 * poll the lock every millisecond and cannot say they wait, so a long burst
 * of woolrx publishes must leave them a gap. In ms.
 * @internal
 */
export const LOCK_HOLD_MS = 20;
/** How long such a pause lasts, in ms: longer than wool's poll period. @internal */
export const LOCK_PAUSE_MS = 2;
/**
 * The lock taken again within this long of letting it go, in ms, continues the holding (nobody else
 * had a poll's chance). @internal
 */
export const LOCK_RETAKE_GAP_MS = 1;
/**
 * The lock taken again within this long of letting it go, in ms, makes a
 * burst, whose sections may keep it: publishes chained in one turn of the
 * event loop, or a turn apart; not publishes paced by a timer.
 * @internal
 */
export const LOCK_BURST_GAP_MS = 0.2;

/** Releases the lock (synchronous, idempotent). @internal */
export type Release = () => void;

/** How one section holds the lock (see {@link LockHolding.take}). @internal */
export interface Turn {
  /** The lock was kept from the previous section: nothing it read under the lock can have changed. */
  readonly kept: boolean;
  /** The section belongs to a burst: the lock kept, or taken again right after it was let go. */
  readonly burst: boolean;
}

const KEPT: Turn = { kept: true, burst: true };
const BURST: Turn = { kept: false, burst: true };
const LONE: Turn = { kept: false, burst: false };

/**
 * When one writer takes, keeps and lets go of the namespace lock: the
 * burst, fairness, owed-notification and exit-hook policy, apart from what
 * the writer does under the lock.
 *
 * - **Burst**: a section of a burst that succeeds may keep the lock for the
 *   next one, so that a burst of changes takes it about once; a lone change
 *   releases it before its notification, so that nothing of the publisher
 *   runs after the wake-up it sends (a woken subscriber is often placed on
 *   the publisher's CPU). A kept lock is let go when the event loop turns,
 *   and never kept for a section begun more than {@link LOCK_LINGER_MS}
 *   after the lock was taken.
 * - **Fairness**: never kept while another woolrx publisher says it waits
 *   (`waited`); and a writer that held it {@link LOCK_HOLD_MS} in a row
 *   leaves it free for {@link LOCK_PAUSE_MS} first, for wool's pollers.
 * - **Owed notifications**: sections run under a kept lock owe their
 *   notifications until it is released: a burst wakes an idle subscriber
 *   for its first change, then once more for the rest, not once per change.
 * - **Exit hook**: a lock kept when the process exits (by `process.exit()`
 *   in the same turn, say) is released and its notifications sent.
 * @internal
 */
export class LockHolding {
  /** Holdings keeping the lock now: released (and their notifications sent) if the process exits first. */
  static readonly #keeping = new Set<LockHolding>();
  static #exitHooked = false;

  readonly #touch: (count: number, verify: boolean) => void;
  readonly #waited: () => boolean;
  readonly #report: (count: number, error: unknown) => void;
  /** The lock held by the section running now. */
  #current: Release | undefined;
  /** The lock kept after the last section, or `undefined`. */
  #kept: Release | undefined;
  /** When the lock now held or kept was taken. */
  #takenAt = 0;
  /** Releases a kept lock once the event loop turns. */
  #letGo: ReturnType<typeof setImmediate> | undefined;
  /** Notifications owed by sections run under a kept lock. */
  #owed = 0;
  /** Some section that owes a notification (re)opened the segment: the first touch re-checks the file. */
  #owedVerify = false;
  /** Since when this writer has held the lock in a row, and when it last let it go (see {@link LOCK_HOLD_MS}). */
  #holdingSince = 0;
  #releasedAt = -Infinity;

  /**
   * @param touch Sends `count` notifications (`verify`: re-check the
   * notification file first); may throw.
   * @param waited Whether another woolrx publisher says it waits for the lock.
   * @param report Reports owed notifications that could not be sent.
   */
  constructor(
    touch: (count: number, verify: boolean) => void,
    waited: () => boolean,
    report: (count: number, error: unknown) => void,
  ) {
    this.#touch = touch;
    this.#waited = waited;
    this.#report = report;
  }

  /**
   * Takes the lock for one section: the one kept from the last section, or
   * a fresh one from `acquire` — after a pause when this writer has held it
   * long in a row.
   * @param acquire Takes the lock afresh.
   * @returns How the section holds it.
   */
  async take(acquire: () => Promise<Release>): Promise<Turn> {
    const kept = this.#kept;
    this.#kept = undefined;
    if (kept !== undefined) {
      this.#current = kept;
      return KEPT;
    }
    const since = performance.now() - this.#releasedAt;
    // Let go more than a retake gap ago: a new holding starts.
    if (since > LOCK_RETAKE_GAP_MS) this.#holdingSince = performance.now();
    let burst = since <= LOCK_BURST_GAP_MS;
    if (performance.now() - this.#holdingSince >= LOCK_HOLD_MS) {
      await sleep(LOCK_PAUSE_MS);
      this.#holdingSince = performance.now();
      burst = false;
    }
    const unlock = await acquire();
    this.#current = () => {
      unlock();
      this.#releasedAt = performance.now();
    };
    this.#takenAt = performance.now();
    return burst ? BURST : LONE;
  }

  /**
   * Whether the section that just succeeded may keep the lock: `keep`
   * asked, in a burst, begun within {@link LOCK_LINGER_MS} of taking it.
   * @param turn How the section holds the lock.
   * @param keep The caller allows it (`false`: it is about to take the lock
   * from another descriptor, or is leaving).
   * @returns Whether to hold on to it past the section.
   */
  mayKeep(turn: Turn, keep: boolean): boolean {
    return keep && turn.burst && performance.now() - this.#takenAt < LOCK_LINGER_MS;
  }

  /** Releases the lock the current section holds, then sends what the burst owes. */
  release(): void {
    const release = this.#current;
    this.#current = undefined;
    release?.();
    this.flush();
  }

  /**
   * Ends a section that succeeded: sends its notifications now, or — run
   * under a kept lock that stays kept — owes them until the lock is
   * released; then keeps a lock still held for the next section, unless
   * someone waits for it.
   * @param turn How the section held the lock.
   * @param holding Whether it still holds it ({@link LockHolding.mayKeep}).
   * @param records Notifications the section owes (one per journal record).
   * @param verify The section (re)opened the segment: re-check the notification file.
   */
  done(turn: Turn, holding: boolean, records: number, verify: boolean): void {
    const owe = turn.kept && holding;
    if (owe && records > 0) {
      this.#owed += records;
      this.#owedVerify ||= verify;
    }
    try {
      if (!owe && records > 0) this.#touch(records, verify);
    } finally {
      // Asked after the touch, which wakes subscribers a syscall sooner.
      if (holding) this.#keepUnlessWaited();
    }
  }

  /**
   * Sends the notifications owed by sections run under a kept lock. Never
   * throws: a touch that fails (the notification file made unsafe
   * meanwhile) is reported, and subscribers find the changes at their next
   * poll tick.
   */
  flush(): void {
    const owed = this.#owed;
    const verify = this.#owedVerify;
    this.#owed = 0;
    this.#owedVerify = false;
    if (owed === 0) return;
    try {
      this.#touch(owed, verify);
    } catch (error) {
      this.#report(owed, error);
    }
  }

  /** Releases a kept lock and sends what it owes. Idempotent. */
  close(): void {
    if (this.#letGo !== undefined) clearImmediate(this.#letGo);
    this.#letGo = undefined;
    this.#releaseKept();
  }

  /**
   * Keeps the lock for the next section, or releases it now if another woolrx publisher waits for
   * it (or asking failed).
   */
  #keepUnlessWaited(): void {
    let waited = true;
    try {
      waited = this.#waited();
    } finally {
      if (waited) this.release();
      else this.#keep();
    }
  }

  /**
   * Keeps the lock after a section; released when the event loop turns, unless a section takes it
   * first, or when the process exits.
   */
  #keep(): void {
    this.#kept = this.#current;
    this.#current = undefined;
    this.#letGo ??= setImmediate(() => {
      this.#letGo = undefined;
      this.#releaseKept();
    });
    LockHolding.#keeping.add(this);
    if (!LockHolding.#exitHooked) {
      LockHolding.#exitHooked = true;
      process.once('exit', () => {
        for (const holding of LockHolding.#keeping) holding.#releaseKept();
      });
    }
  }

  /** Releases a kept lock now, then sends the notifications the burst owes. Idempotent. */
  #releaseKept(): void {
    LockHolding.#keeping.delete(this);
    const release = this.#kept;
    this.#kept = undefined;
    release?.();
    this.flush();
  }
}
