/**
 * Per-event cost of the event operators: filterWorkers, toSnapshots,
 * expireWorkers, shareWorkers, and RxJS's own `filter` as the reference.
 *
 * The events are built up front: `workers` workers are added, then each is
 * updated to new metadata in turn, alternating between two prebuilt
 * versions, so every event is a real change every operator has to handle.
 * (One expireWorkers case instead repeats the first `workers` events: the
 * unchanged re-announcements an mDNS browser mostly sees.) They are pushed
 * through a `Subject` into a fresh subscription, in bursts
 * of `BURST` events each followed by a microtask (so toSnapshots flushes
 * once per burst, as it would per backend message). Each case runs once to
 * warm up, then `ROUNDS` times; the best round is reported. Time is this
 * process's CPU time (`process.cpuUsage`, user + system), which other
 * processes on a busy machine disturb far less than wall-clock time. Every
 * round checks what came out, so a broken operator cannot produce a number.
 */
import { filter, type Observable, type OperatorFunction, Subject } from 'rxjs';
import type { DiscoveryEvent } from '../../src/events/types.js';
import { discoveryEvent } from '../../src/events/discoveryEvent.js';
import type { WorkerInfo } from '../../src/model/types.js';
import { workerInfo } from '../../src/model/workerInfo.js';
import { expireWorkers } from '../../src/operators/expireWorkers.js';
import { filterWorkers } from '../../src/operators/filterWorkers.js';
import { shareWorkers } from '../../src/operators/shareWorkers.js';
import { toSnapshots } from '../../src/operators/toSnapshots.js';

interface Row {
  name: string;
  value: number;
  unit: string;
}

const BURST = 100;
const ROUNDS = 5;

function makeWorker(i: number, version: number): WorkerInfo {
  return workerInfo({
    uid: `${(i + 1).toString(16).padStart(8, '0')}-0000-4000-8000-${i.toString(16).padStart(12, '0')}`,
    address: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}:50051`,
    pid: 1000 + i,
    version: `1.0.${version}`,
    tags: ['cpu', i % 7 === 0 ? 'gpu' : 'x86'],
    extra: { zone: `zone-${i % 5}` },
  });
}

function buildEvents(workers: number, events: number): DiscoveryEvent[] {
  const versions = [0, 1, 2].map((v) => Array.from({ length: workers }, (_, i) => makeWorker(i, v)));
  const out: DiscoveryEvent[] = [];
  for (let i = 0; i < workers && out.length < events; i++) out.push(discoveryEvent('worker-added', versions[0]![i]!));
  for (let n = 0; out.length < events; n++) {
    const i = n % workers;
    const round = Math.floor(n / workers);
    out.push(discoveryEvent('worker-updated', versions[1 + (round % 2)]![i]!));
  }
  return out;
}

interface Case {
  readonly name: string;
  /** `repeats`: the first `workers` events again and again (unchanged re-announcements). */
  readonly input?: 'repeats';
  /** The pipeline under test, applied to the input. */
  readonly pipe: (input: Observable<DiscoveryEvent>) => Observable<unknown>[];
  /** How many values the outputs together must have emitted. */
  readonly expected: (events: number) => number | undefined;
}

async function runOnce(events: readonly DiscoveryEvent[], c: Case): Promise<number> {
  const input = new Subject<DiscoveryEvent>();
  let out = 0;
  const subscriptions = c.pipe(input).map((result) => result.subscribe(() => (out += 1)));
  const start = process.cpuUsage();
  for (let i = 0; i < events.length; i += BURST) {
    const end = Math.min(events.length, i + BURST);
    for (let j = i; j < end; j++) input.next(events[j]!);
    await Promise.resolve();
  }
  const used = process.cpuUsage(start);
  const elapsed = (used.user + used.system) / 1000;
  for (const s of subscriptions) s.unsubscribe();
  const expected = c.expected(events.length);
  if (expected !== undefined && out !== expected) throw new Error(`${c.name}: ${out} values out, expected ${expected}`);
  return elapsed;
}

/**
 * Times each operator over `events` events of `workers` workers.
 * @param opts `only`: run just the cases whose name starts with it.
 * @returns Rows in ns per event.
 */
export async function benchOperators(opts: { workers: number; events: number; only?: string }): Promise<Row[]> {
  const events = buildEvents(opts.workers, opts.events);
  const repeats = Array.from({ length: opts.events }, (_, i) => events[i % opts.workers]!);
  const all = (): boolean => true;
  const bursts = Math.ceil(events.length / BURST);
  const cases: Case[] = [
    { name: 'RxJS filter (reference)', pipe: (i) => [i.pipe(filter(all))], expected: (n) => n },
    { name: 'filterWorkers', pipe: (i) => [i.pipe(filterWorkers(all))], expected: (n) => n },
    {
      name: 'filterWorkers (1 in 7 passes)',
      pipe: (i) => [i.pipe(filterWorkers((w) => w.tags.includes('gpu')))],
      expected: () => undefined,
    },
    {
      name: 'toSnapshots (one per burst of 100)',
      pipe: (i) => [i.pipe(toSnapshots() as OperatorFunction<DiscoveryEvent, unknown>)],
      expected: () => bursts,
    },
    { name: 'expireWorkers (ttl 60 s)', pipe: (i) => [i.pipe(expireWorkers(60_000))], expected: (n) => n },
    {
      name: 'expireWorkers (ttl 60 s, unchanged re-announcements)',
      input: 'repeats',
      pipe: (i) => [i.pipe(expireWorkers(60_000))],
      expected: () => opts.workers,
    },
    {
      name: 'shareWorkers (2 subscribers)',
      pipe: (i) => {
        const shared = i.pipe(shareWorkers());
        return [shared, shared];
      },
      expected: (n) => 2 * n,
    },
  ];
  const rows: Row[] = [];
  for (const c of cases) {
    if (opts.only !== undefined && !c.name.startsWith(opts.only)) continue;
    const input = c.input === 'repeats' ? repeats : events;
    await runOnce(input, c); // warm-up
    let best = Number.POSITIVE_INFINITY;
    for (let r = 0; r < ROUNDS; r++) best = Math.min(best, await runOnce(input, c));
    rows.push({ name: `${c.name} per event`, value: (best * 1e6) / input.length, unit: 'ns' });
  }
  return rows;
}
