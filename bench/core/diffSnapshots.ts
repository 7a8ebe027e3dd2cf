/**
 * diffSnapshots benchmark: a stream of snapshots of `workers` workers, with
 * `changedFraction` of them changed (new version) in each snapshot.
 *
 * All snapshots are built up front; only the diff is timed. The first
 * snapshot (all `worker-added`) is fed untimed; each run is a fresh
 * subscription through the whole sequence, best of a few runs after a
 * warm-up run. Every run checks that exactly the changed workers were
 * reported, so a wrong diff cannot produce a number.
 *
 * Two cases:
 * - shared objects: unchanged workers keep their object from one snapshot to
 *   the next (what a backend that keeps its decoded workers produces); the
 *   identity short-circuit skips them;
 * - fresh objects: every worker is a new object with identical metadata in
 *   each snapshot (a backend that re-decodes everything on every scan, like
 *   wool's); each unchanged worker costs a full `sameWorker` comparison.
 */
import { performance } from 'node:perf_hooks';
import { Subject } from 'rxjs';
import type { WorkerSnapshot } from '../../src/events/types.js';
import type { WorkerInfo } from '../../src/model/types.js';
import { workerInfo } from '../../src/model/workerInfo.js';
import { diffSnapshots } from '../../src/operators/diffSnapshots.js';
// Deterministic (mulberry32), so every run diffs the same data.
import { prng } from '../../test/reliability/prng.js';

interface Row {
  name: string;
  value: number;
  unit: string;
}

/** Issue #24's goal for the shared-objects case at 10,000 workers, 1 % changed (snapshots/s). */
const TARGET = 5_000;

/** Snapshots timed in the fresh-objects case (at most). */
const FRESH_SNAPSHOTS = 100;

interface Options {
  workers: number;
  changedFraction: number;
  snapshots: number;
}

function makeWorker(i: number, version: number): WorkerInfo {
  return workerInfo({
    uid: `00000000-0000-4000-8000-${i.toString(16).padStart(12, '0')}`,
    address: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}:50051`,
    pid: 1000 + i,
    version: `1.0.${version}`,
    tags: ['cpu', i % 7 === 0 ? 'gpu' : 'x86'],
    extra: { zone: `zone-${i % 5}`, rack: `r${i % 40}` },
  });
}

/** `count` distinct indexes in [0, n). */
function pick(random: () => number, n: number, count: number): number[] {
  const chosen = new Set<number>();
  while (chosen.size < count) chosen.add(Math.floor(random() * n));
  return [...chosen];
}

/**
 * Builds snapshots[0..snapshots]: snapshot 0 is the initial set, each later
 * one changes `changed` workers of the one before.
 */
function buildSnapshots(opts: Options, changed: number, fresh: boolean): WorkerSnapshot[] {
  const random = prng(0x5eed);
  const versions = new Array<number>(opts.workers).fill(0);
  // For "fresh": two interchangeable copies of every unchanged worker, used
  // alternately, so consecutive snapshots never share an object.
  const copies: WorkerInfo[][] = [[], []];
  let current: WorkerInfo[] = [];
  for (let i = 0; i < opts.workers; i++) current.push(makeWorker(i, 0));
  if (fresh) {
    copies[0] = current;
    copies[1] = current.map((_, i) => makeWorker(i, 0));
  }
  const toMap = (workers: readonly WorkerInfo[]): WorkerSnapshot =>
    new Map(workers.map((worker) => [worker.uid, worker]));
  const out: WorkerSnapshot[] = [toMap(current)];
  for (let s = 1; s <= opts.snapshots; s++) {
    const next = fresh ? [...(copies[s % 2] ?? [])] : [...current];
    for (const i of pick(random, opts.workers, changed)) {
      versions[i] = (versions[i] ?? 0) + 1;
      const worker = makeWorker(i, versions[i] ?? 0);
      next[i] = worker;
      if (fresh) {
        // Both copies take the new metadata, as separate objects.
        (copies[s % 2] ?? [])[i] = worker;
        (copies[(s + 1) % 2] ?? [])[i] = makeWorker(i, versions[i] ?? 0);
      }
    }
    current = next;
    out.push(toMap(next));
  }
  return out;
}

/** ms for one pass over snapshots[1..] through a fresh subscription. */
function run(snapshots: readonly WorkerSnapshot[], changed: number): number {
  const input = new Subject<WorkerSnapshot>();
  let events = 0;
  let updates = 0;
  const subscription = input.pipe(diffSnapshots()).subscribe((event) => {
    events++;
    if (event.type === 'worker-updated') updates++;
  });
  const [first, ...rest] = snapshots;
  if (first === undefined) throw new Error('no snapshots');
  input.next(first); // untimed: all worker-added
  events = 0;
  updates = 0;
  const start = performance.now();
  for (const snapshot of rest) input.next(snapshot);
  const elapsed = performance.now() - start;
  subscription.unsubscribe();
  const expected = rest.length * changed;
  if (events !== expected || updates !== expected) {
    throw new Error(`diffSnapshots reported ${events} events (${updates} updates), expected ${expected} updates`);
  }
  return elapsed;
}

/**
 * The floor under a diff of these snapshots: the walk alone — each snapshot
 * and the one before it iterated in step (keys and values iterators, so an
 * uid in the same place costs no lookup and no entry array), the objects
 * compared by reference, a lookup where the uids differ — with no RxJS, no
 * events, no state kept. Checked like {@link run}: it must find exactly the
 * changed workers.
 * @returns ms for one pass over snapshots[1..].
 */
function floorRun(snapshots: readonly WorkerSnapshot[], changed: number): number {
  let found = 0;
  const start = performance.now();
  for (let s = 1; s < snapshots.length; s++) {
    const prev = snapshots[s - 1];
    const next = snapshots[s];
    if (prev === undefined || next === undefined) break;
    const prevUids = prev.keys();
    const prevWorkers = prev.values();
    const workers = next.values();
    for (const uid of next.keys()) {
      const worker = workers.next().value;
      const prevUid = prevUids.next().value;
      const before = prevWorkers.next().value;
      const old = Object.is(prevUid, uid) ? before : prev.get(uid);
      if (!Object.is(old, worker)) found++;
    }
    if (next.size !== prev.size) throw new Error('a worker left or came: the floor expects none to');
  }
  const elapsed = performance.now() - start;
  if (found !== (snapshots.length - 1) * changed)
    throw new Error(`the floor found ${found} changed workers, expected ${(snapshots.length - 1) * changed}`);
  return elapsed;
}

function measure(snapshots: readonly WorkerSnapshot[], changed: number, rounds = 3, pass = run): number {
  pass(snapshots, changed); // warm-up
  let best = Number.POSITIVE_INFINITY;
  for (let r = 0; r < rounds; r++) best = Math.min(best, pass(snapshots, changed));
  return best;
}

/**
 * Times `diffSnapshots` over `snapshots` snapshots of `workers` workers with
 * `changedFraction` of them changed per snapshot.
 *
 * @returns Rows: snapshots/s, µs per snapshot and µs per changed worker, for
 * shared and for fresh worker objects.
 */
export async function benchDiffSnapshots(opts: Options): Promise<Array<{ name: string; value: number; unit: string }>> {
  const { workers, changedFraction, snapshots } = opts;
  if (!(Number.isSafeInteger(workers) && workers > 0))
    throw new TypeError(`workers must be a positive integer, got ${workers}`);
  if (!(Number.isSafeInteger(snapshots) && snapshots > 0)) {
    throw new TypeError(`snapshots must be a positive integer, got ${snapshots}`);
  }
  if (!(changedFraction > 0 && changedFraction <= 1)) {
    throw new TypeError(`changedFraction must be in (0, 1], got ${changedFraction}`);
  }
  const changed = Math.max(1, Math.round(workers * changedFraction));
  const rows: Row[] = [];
  for (const fresh of [false, true]) {
    const label = fresh ? 'fresh objects' : 'shared objects';
    // The fresh case is ~15x slower per snapshot; fewer snapshots keep the
    // suite short without changing the per-snapshot figures.
    const count = fresh ? Math.min(snapshots, FRESH_SNAPSHOTS) : snapshots;
    const data = buildSnapshots({ ...opts, snapshots: count }, changed, fresh);
    const ms = measure(data, changed);
    // The floor, shared objects only: with fresh objects every worker differs by reference.
    const floor = fresh ? undefined : measure(data, changed, 3, floorRun);
    rows.push(
      { name: `diffSnapshots (${label}) throughput`, value: (count / ms) * 1000, unit: 'snapshots/s' },
      ...(fresh
        ? []
        : [
            {
              name: `diffSnapshots (${label}) throughput / target ${TARGET.toLocaleString('en-US')}/s`,
              value: ((count / ms) * 1000) / TARGET,
              unit: '×',
            },
          ]),
      { name: `diffSnapshots (${label}) per snapshot`, value: (ms * 1000) / count, unit: 'µs' },
      { name: `diffSnapshots (${label}) per changed worker`, value: (ms * 1000) / (count * changed), unit: 'µs' },
      ...(floor === undefined
        ? []
        : [
            {
              name: 'floor: the walk alone (in step with the snapshot before, by reference; no RxJS), per snapshot',
              value: (floor * 1000) / count,
              unit: 'µs',
            },
            { name: `diffSnapshots (${label}) / floor, per snapshot`, value: ms / floor, unit: '×' },
          ]),
    );
    // Let the previous case's snapshots be collected before building the next.
    await new Promise((resolve) => setImmediate(resolve));
  }
  return rows;
}
