import type { Subject } from 'rxjs';
import { decodeWorker } from '../../codec/decodeWorker.js';
import type { DiscoveryDiagnostic } from '../../discovery/types.js';
import type { DropReason } from '../../events/types.js';
import type { WorkerInfo } from '../../model/types.js';
import { BlockReader } from './block/BlockReader.js';
import type { ToldWorkers } from './block/WorkerBlocks.js';
import { LENGTH_PREFIX } from './block/blockFile.js';
import type { LocalSettings } from './types.js';

/**
 * Withdraws registrations the way a publisher's withdrawal does: under the
 * namespace lock, each worker's slot freed, its block unlinked and its drop
 * journaled with `reason`, one notification each.
 * @param uids The workers to withdraw.
 * @param confirm Asked under the lock, before each: whether it still goes.
 * @param reason Why, for subscribers.
 * @returns The uids withdrawn (a worker no longer registered is skipped).
 * @internal
 */
export type Withdraw = (
  uids: readonly string[],
  confirm: (uid: string) => boolean,
  reason: DropReason,
) => Promise<readonly string[]>;

/**
 * Liveness for one local subscriber: checks the pid of each new worker at
 * once and of every worker once per period (`process.kill(pid, 0)`; `EPERM`
 * counts as alive), and reclaims the workers whose process is gone — under
 * the namespace lock, through the publishers' own withdraw path (a
 * {@link Withdraw}: slot freed, block unlinked, drop journaled, one
 * notification each), so every subscriber, this one
 * included, then sees them dropped. Reclaiming is a withdrawal "whichever
 * publisher registered it", like a `worker-dropped`; a worker is reclaimed
 * only while its block still names the dead pid.
 *
 * The pid checked is the one the worker's *registrant* published: its
 * block's registrant mark, when it has one (a woolrx publisher's block),
 * else its record's pid (wool's blocks). So liveness follows ownership: a
 * re-add or update from another process changes the metadata's pid, not
 * whose exit withdraws the worker.
 * @internal
 */
export class Reclaimer {
  readonly #namespace: string;
  readonly #settings: Pick<LocalSettings, 'liveness' | 'pollInterval'>;
  readonly #withdraw: Withdraw;
  readonly #diagnostics: Subject<DiscoveryDiagnostic>;
  readonly #ledger: Pick<ToldWorkers, 'get' | 'forEach'>;
  readonly #reader: BlockReader;
  readonly #done: () => void;
  readonly #registrantOf: (uid: string) => number;
  /** When each pid was last seen alive (re-checked once per period). */
  readonly #aliveAt = new Map<number, number>();
  #lastSweep = 0;
  #reclaiming = false;

  /**
   * @param namespace The namespace (for diagnostics).
   * @param settings `liveness`, and `pollInterval` as the period.
   * @param diagnostics Where recoveries and failures are reported.
   * @param ledger What the subscriber was told: the workers to check.
   * @param reader Reads a dead worker's block (the subscriber's own reader).
   * @param withdraw Withdraws the dead workers.
   * @param done Called after each reclaim attempt (the subscriber then looks again).
   * @param registrantOf The pid of a worker's registrant mark, or 0 (none);
   * by default read from its block each time.
   */
  constructor(
    namespace: string,
    settings: Pick<LocalSettings, 'liveness' | 'pollInterval'>,
    diagnostics: Subject<DiscoveryDiagnostic>,
    ledger: Pick<ToldWorkers, 'get' | 'forEach'>,
    reader: BlockReader,
    withdraw: Withdraw,
    done: () => void,
    registrantOf?: (uid: string) => number,
  ) {
    this.#registrantOf = registrantOf ?? ((uid) => Math.max(this.#blockLiveness(uid).mark, 0));
    this.#namespace = namespace;
    this.#settings = settings;
    this.#withdraw = withdraw;
    this.#diagnostics = diagnostics;
    this.#ledger = ledger;
    this.#reader = reader;
    this.#done = done;
  }

  /**
   * Checks the workers of `fresh` now, and every known worker once per period;
   * starts reclaiming the dead ones.
   * @param fresh Entries of workers just found.
   * @param now `performance.now()`.
   */
  check(fresh: Iterable<{ readonly uid: string }>, now = performance.now()): void {
    if (!this.#settings.liveness) return;
    const period = this.#settings.pollInterval || 1000;
    const sweepAll = now - this.#lastSweep >= period;
    let dead: { uid: string; pid: number }[] | undefined;
    let pid: number;
    if (sweepAll) {
      this.#lastSweep = now;
      this.#aliveAt.clear();
      const found: { uid: string; pid: number }[] = [];
      this.#ledger.forEach((worker) => {
        const gone = this.#dead(worker, now, period);
        if (gone > 0) found.push({ uid: worker.uid, pid: gone });
      });
      if (found.length > 0) dead = found;
    } else {
      for (const entry of fresh) {
        const worker = this.#ledger.get(entry.uid);
        if (worker !== undefined && (pid = this.#dead(worker, now, period)) > 0)
          (dead ??= []).push({ uid: worker.uid, pid });
      }
    }
    if (dead !== undefined) this.#reclaim(dead);
  }

  /**
   * The dead pid a worker's liveness follows (its registrant's, see the
   * class), or 0 while that process lives (looked up at most once per
   * period while alive).
   */
  #dead(worker: WorkerInfo, now: number, period: number): number {
    const pid = this.#registrantOf(worker.uid) || worker.pid;
    if (pid <= 0) return 0;
    const seen = this.#aliveAt.get(pid);
    if (seen !== undefined && (now - seen < period || seen >= this.#lastSweep)) return 0;
    if (isAlive(pid)) {
      this.#aliveAt.set(pid, now);
      return 0;
    }
    this.#aliveAt.delete(pid);
    return pid;
  }

  /**
   * What a worker's block says now: the pid its liveness follows (its
   * registrant mark's, else its record's) and the mark's pid (0: none), or
   * -1 for both (no block, unsafe, larger than the reader's limit, torn or
   * malformed).
   */
  #blockLiveness(uid: string): { pid: number; mark: number } {
    const block = BlockReader.handle(uid);
    try {
      const read = this.#reader.read(block);
      if (read.kind !== 'record') return { pid: -1, mark: -1 };
      const mark = read.registrant;
      return { pid: mark || decodeWorker(read.record.subarray(LENGTH_PREFIX)).pid, mark };
    } catch {
      return { pid: -1, mark: -1 };
    } finally {
      this.#reader.close(block);
    }
  }

  /** Withdraws dead workers under the lock (one attempt at a time), then reports each. */
  #reclaim(dead: readonly { uid: string; pid: number }[]): void {
    if (this.#reclaiming) return;
    this.#reclaiming = true;
    const pids = new Map(dead.map(({ uid, pid }) => [uid, pid]));
    // Still dead under the lock: the block names the same pid, and it is gone.
    const confirm = (uid: string): boolean => {
      const pid = pids.get(uid) ?? 0;
      return this.#blockLiveness(uid).pid === pid && !isAlive(pid);
    };
    this.#withdraw([...pids.keys()], confirm, 'process-gone')
      .then(
        (withdrawn) => {
          for (const uid of withdrawn) {
            const pid = pids.get(uid) ?? 0;
            this.#diagnostics.next({
              kind: 'recovered',
              namespace: this.#namespace,
              uid,
              message:
                `Worker ${uid} is gone (pid ${pid} no longer exists: the process its registrant named); reclaimed ` +
                `its slot and block`,
            });
          }
        },
        (error: unknown) =>
          this.#diagnostics.next({
            kind: 'warning',
            namespace: this.#namespace,
            message: 'Reclaiming the slots of dead workers failed; retrying on the next sweep',
            error,
          }),
      )
      .finally(() => {
        this.#reclaiming = false;
        this.#done();
      });
  }
}

/**
 * Whether a process of this pid exists on this host (`kill(pid, 0)`;
 * `EPERM`, someone else's process, counts as alive).
 * @internal
 * @param pid A process id (> 0).
 * @returns `true` when it exists.
 */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
