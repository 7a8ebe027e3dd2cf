import type { Subject } from 'rxjs';
import { decodeWorker } from '../../codec/decodeWorker.js';
import type { DiscoveryDiagnostic } from '../../discovery/types.js';
import type { WorkerLedger } from '../../events/WorkerLedger.js';
import type { WorkerInfo } from '../../model/types.js';
import { BlockReader, type BlockEntry } from './BlockReader.js';
import { isAlive } from './isAlive.js';
import { LENGTH_PREFIX } from './layout.js';
import { NamespaceWriter } from './NamespaceWriter.js';
import type { LocalNames, LocalSettings } from './types.js';

/**
 * Liveness for one local subscriber: checks the pid of each new worker at
 * once and of every worker once per period (`process.kill(pid, 0)`; `EPERM`
 * counts as alive), and reclaims the workers whose process is gone — under
 * the namespace lock, through the publishers' own withdraw path
 * ({@link NamespaceWriter.withdraw}: slot freed, block unlinked, drop
 * journaled, one notification each), so every subscriber, this one
 * included, then sees them dropped. Reclaiming is a withdrawal "whichever
 * publisher registered it", like a `worker-dropped`; a worker is reclaimed
 * only while its block still names the dead pid.
 * @internal
 */
export class Reclaimer {
  readonly #names: LocalNames;
  readonly #settings: LocalSettings;
  readonly #diagnostics: Subject<DiscoveryDiagnostic>;
  readonly #ledger: WorkerLedger;
  readonly #reader: BlockReader;
  readonly #done: () => void;
  /** When each pid was last seen alive (re-checked once per period). */
  readonly #aliveAt = new Map<number, number>();
  #lastSweep = 0;
  #reclaiming = false;

  /**
   * @param names The namespace's names.
   * @param settings Resolved options (`liveness`, `pollInterval` as the period, the lock's).
   * @param diagnostics Where recoveries and failures are reported.
   * @param ledger What the subscriber was told: the workers to check.
   * @param reader Reads a dead worker's block (the subscriber's own reader).
   * @param done Called after each reclaim attempt (the subscriber then looks again).
   */
  constructor(
    names: LocalNames,
    settings: LocalSettings,
    diagnostics: Subject<DiscoveryDiagnostic>,
    ledger: WorkerLedger,
    reader: BlockReader,
    done: () => void,
  ) {
    this.#names = names;
    this.#settings = settings;
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
  check(fresh: ReadonlySet<BlockEntry>, now = performance.now()): void {
    if (!this.#settings.liveness) return;
    const period = this.#settings.pollInterval || 1000;
    const sweepAll = now - this.#lastSweep >= period;
    let dead: WorkerInfo[] | undefined;
    if (sweepAll) {
      this.#lastSweep = now;
      this.#aliveAt.clear();
      for (const worker of this.#ledger.values()) if (this.#dead(worker, now, period)) (dead ??= []).push(worker);
    } else {
      for (const entry of fresh) {
        const worker = this.#ledger.get(entry.uid);
        if (worker !== undefined && this.#dead(worker, now, period)) (dead ??= []).push(worker);
      }
    }
    if (dead !== undefined) this.#reclaim(dead);
  }

  /** Whether a worker's process is gone (looked up at most once per period while alive). */
  #dead(worker: WorkerInfo, now: number, period: number): boolean {
    if (worker.pid <= 0) return false;
    const seen = this.#aliveAt.get(worker.pid);
    if (seen !== undefined && (now - seen < period || seen >= this.#lastSweep)) return false;
    if (isAlive(worker.pid)) {
      this.#aliveAt.set(worker.pid, now);
      return false;
    }
    this.#aliveAt.delete(worker.pid);
    return true;
  }

  /**
   * The pid a worker's block records now, or -1 (no block, unsafe, larger
   * than the reader's limit, torn or malformed).
   */
  #blockPid(uid: string): number {
    const entry = BlockReader.entry(uid);
    try {
      const record = this.#reader.read(entry);
      return typeof record === 'string' ? -1 : decodeWorker(record.subarray(LENGTH_PREFIX)).pid;
    } catch {
      return -1;
    } finally {
      this.#reader.close(entry);
    }
  }

  /** Withdraws dead workers under the lock (one attempt at a time), then reports each. */
  #reclaim(dead: readonly WorkerInfo[]): void {
    if (this.#reclaiming) return;
    this.#reclaiming = true;
    const writer = new NamespaceWriter(this.#names, this.#settings, this.#diagnostics);
    const reclaimed: WorkerInfo[] = [];
    writer
      .locked((segment) => {
        if (segment === undefined) return 0;
        for (const worker of dead) {
          if (this.#blockPid(worker.uid) !== worker.pid || isAlive(worker.pid)) continue;
          if (writer.withdraw(segment, worker.uid)) reclaimed.push(worker);
        }
        return reclaimed.length;
      }, false)
      .then(
        () => {
          for (const { uid, pid } of reclaimed) {
            this.#diagnostics.next({
              kind: 'recovered',
              namespace: this.#names.namespace,
              uid,
              message: `Worker ${uid} is gone (pid ${pid} no longer exists); reclaimed its slot and block`,
            });
          }
        },
        (error: unknown) =>
          this.#diagnostics.next({
            kind: 'warning',
            namespace: this.#names.namespace,
            message: 'Reclaiming the slots of dead workers failed; retrying on the next sweep',
            error,
          }),
      )
      .finally(() => {
        writer.close();
        this.#reclaiming = false;
        this.#done();
      });
  }
}
