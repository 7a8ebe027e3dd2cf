import { closeSync, constants, readSync } from 'node:fs';
import type { Subject } from 'rxjs';
import { decodeWorker } from '../../codec/decodeWorker.js';
import type { DiscoveryDiagnostic } from '../../discovery/types.js';
import type { WorkerLedger } from '../../events/WorkerLedger.js';
import type { WorkerInfo } from '../../model/types.js';
import type { BlockEntry } from './BlockReader.js';
import { isAlive } from './isAlive.js';
import { LENGTH_PREFIX, MAX_READ_BLOCK } from './layout.js';
import { NamespaceWriter } from './NamespaceWriter.js';
import { openSafe } from './openSafe.js';
import type { LocalNames, LocalSettings } from './types.js';

/**
 * The pid recorded in a block now, or -1 (no block, unsafe, larger than
 * `maxBlock`, or malformed). Reads at most the block's size, bounded.
 */
function blockPid(path: string, maxBlock: number): number {
  try {
    const { fd, stats } = openSafe(path, constants.O_RDONLY);
    try {
      if (stats.size > maxBlock || stats.size < LENGTH_PREFIX) return -1;
      const bytes = Buffer.alloc(stats.size);
      const n = readSync(fd, bytes, 0, stats.size, 0);
      const length = bytes.readUInt32LE(0);
      if (LENGTH_PREFIX + length > n) return -1;
      return decodeWorker(bytes.subarray(LENGTH_PREFIX, LENGTH_PREFIX + length)).pid;
    } finally {
      closeSync(fd);
    }
  } catch {
    return -1;
  }
}

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
   * @param done Called after each reclaim attempt (the subscriber then looks again).
   */
  constructor(
    names: LocalNames,
    settings: LocalSettings,
    diagnostics: Subject<DiscoveryDiagnostic>,
    ledger: WorkerLedger,
    done: () => void,
  ) {
    this.#names = names;
    this.#settings = settings;
    this.#diagnostics = diagnostics;
    this.#ledger = ledger;
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
          const maxBlock = Math.max(this.#settings.blockSize, MAX_READ_BLOCK);
          if (blockPid(writer.blockPath(worker.uid), maxBlock) !== worker.pid || isAlive(worker.pid)) continue;
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
