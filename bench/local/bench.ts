/**
 * Local backend benchmark: add → event latency across processes.
 *
 * A subscriber process and a publisher process share one fresh namespace
 * (capacity = N). The publisher registers N workers one by one, noting
 * CLOCK_MONOTONIC (`process.hrtime`, one clock for every process on the
 * host) just before each publish; the subscriber notes the same clock when
 * each `worker-added` arrives. Latency = arrival − start, per worker.
 * Subscriber CPU (user + system) from the first add to the N-th event,
 * divided by N, is the CPU cost per event.
 *
 * Before the timed phase both children run a full GC (`--expose-gc`), so
 * that their start-up garbage (module loading) is not collected inside the
 * timed phase, and then the publisher warms both up, untimed: it fills the
 * namespace with min(N, 1,000) other workers of the timed phase's shape, one
 * by one and 1 ms apart, and drains it, until 10,000 workers have come and
 * gone — so that both processes run the measured code as V8 optimised it, as
 * a long-running pool does. Why (measured with `--trace-opt` and
 * interleaved runs, 2026-12-02): with 2,000 add/drop pairs of a worker of
 * another shape (no tags) and the GC just before the timed phase, V8 was
 * still compiling 30-40 of the path's functions during the timed phase
 * (2-10 ms each on a background thread, on a 2-vCPU machine shared by the
 * two processes), the subscriber cost ~180 µs of CPU per event instead of
 * ~100, and p99 at N = 1,000 was 2.0-3.5 ms instead of 0.5-1.4 ms; the
 * subscriber's small per-event functions were not optimised until some
 * 5,000-10,000 events. Right before the timed phase each child runs a
 * scavenge, so that every run starts it with an empty young generation
 * (bench/local/emptyYoungGeneration.ts says why). Collections caused by the
 * measured work still happen in the timed phase, and are counted. The whole
 * measurement is repeated `runs` times (fresh processes, fresh namespace)
 * and the median of each figure is reported, with every run's figures, the
 * garbage collections each child ran in its timed phase, and the p50/p99
 * of all runs' latencies pooled.
 * Before the runs, a 1 s busy loop measures how often the host itself
 * stops this process for more than a millisecond (a virtual machine whose
 * vCPUs are preempted does): such stalls land in the tail of any latency
 * measured here, and the report says how many there were.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bareNamespace } from './bareNamespace.js';
import { removeBenchNamespace } from './removeBenchNamespace.js';

const HERE = dirname(fileURLToPath(import.meta.url));
/** Untimed adds (and as many drops) before the timed phase. */
const WARMUP = 10_000;
/** Untimed adds before the floor's timed phase. */
const FLOOR_WARMUP = 4_000;

/** Figures of one run of {@link benchLocal}. */
export interface LocalRun {
  p50_us: number;
  p99_us: number;
  cpu_us_per_event: number;
  /** Garbage collections in the subscriber during the timed phase (0 for the floor). */
  subscriber_gcs: number;
  /** Garbage collections in the publisher during the timed phase (0 for the floor). */
  publisher_gcs: number;
}

/** Result of {@link benchLocal}: the median of each figure over the runs, and every run. */
export interface LocalBenchResult extends LocalRun {
  suite: 'local';
  workers: number;
  runs: LocalRun[];
  /**
   * p50 of every run's latencies taken together (runs × N samples): steadier
   * than the median of the runs' p50s.
   */
  pooled_p50_us: number;
  /**
   * p99 of every run's latencies taken together. A run's own p99 (its 10th
   * worst of 1,000) moves by milliseconds with whether a collection landed
   * in its timed phase (see `subscriber_gcs`, `publisher_gcs`); pooled over
   * the runs, each run's collections weigh as they do in a long-running pool.
   */
  pooled_p99_us: number;
  /** Host stalls (this process not running for > 1 ms) per second, measured before the runs. */
  host_stalls_per_s: number;
  /** The longest such stall, µs. */
  host_max_stall_us: number;
  /** The lone-add floor (see {@link benchLocalFloor}), median of the runs: p50, µs. */
  floor_p50_us: number;
  /** The floor's p99, µs. */
  floor_p99_us: number;
  /** The bare subscriber's CPU per add seen (user + system), median of the runs, µs. */
  floor_cpu_us_per_event: number;
  /** Every floor run, each measured right after the row's run of the same index. */
  floor_runs: LocalRun[];
  /** Each run's p50 over its floor run's: min, median, max. */
  p50_ratio: Spread;
  /** Each run's p99 over its floor run's. */
  p99_ratio: Spread;
  /** Each run's subscriber CPU per event over its floor run's bare subscriber's. */
  cpu_ratio: Spread;
}

/** Min, median and max of a figure over the runs. */
export interface Spread {
  min: number;
  median: number;
  max: number;
}

function spread(values: readonly number[]): Spread {
  const sorted = [...values].sort((a, b) => a - b);
  const round = (x: number | undefined): number => Math.round((x ?? Number.NaN) * 100) / 100;
  return { min: round(sorted[0]), median: round(percentile(sorted, 50)), max: round(sorted.at(-1)) };
}

function spawnChild(
  script: string,
  args: string[],
): { child: ChildProcess; next: (key: string) => Promise<Record<string, unknown>> } {
  // WOOLRX_BENCH_PROF=<script> writes a V8 CPU profile of that child to ./bench-profiles.
  const profile = process.env['WOOLRX_BENCH_PROF'] === script ? ['--cpu-prof', '--cpu-prof-dir=bench-profiles'] : [];
  const child = fork(join(HERE, script), args, {
    execArgv: ['--import', 'tsx', '--expose-gc', ...profile],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const inbox: Record<string, unknown>[] = [];
  const waiting: { key: string; resolve: (m: Record<string, unknown>) => void }[] = [];
  child.on('message', (message: Record<string, unknown>) => {
    const index = waiting.findIndex((w) => w.key in message);
    if (index >= 0) waiting.splice(index, 1)[0]?.resolve(message);
    else inbox.push(message);
  });
  const next = (key: string) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      const index = inbox.findIndex((m) => key in m);
      if (index >= 0) return resolve(inbox.splice(index, 1)[0] ?? {});
      child.once('exit', (code) => reject(new Error(`${script} exited (${code}) before sending ${key}`)));
      waiting.push({ key, resolve });
    });
  return { child, next };
}

function percentile(sorted: readonly number[], p: number): number {
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index] ?? Number.NaN;
}

function median(values: readonly number[]): number {
  return percentile(
    [...values].sort((a, b) => a - b),
    50,
  );
}

/**
 * How often the host stops this process: a busy loop reading the monotonic
 * clock for `ms` milliseconds, counting gaps longer than 1 ms.
 */
function hostStalls(ms = 1000): { perSecond: number; maxUs: number } {
  const start = process.hrtime.bigint();
  const end = start + BigInt(ms) * 1_000_000n;
  let last = start;
  let stalls = 0;
  let max = 0n;
  for (let now = start; now < end; now = process.hrtime.bigint()) {
    const gap = now - last;
    if (gap > 1_000_000n) stalls += 1;
    if (gap > max) max = gap;
    last = now;
  }
  return { perSecond: stalls / (ms / 1000), maxUs: Number(max / 1000n) };
}

/**
 * Runs the local add → event benchmark.
 * @param opts `workers`: how many workers to register (and the namespace capacity); `runs`: how many times (default 3).
 * @returns The median p50/p99 latency in µs and subscriber CPU µs per event over the runs, every
 * run, the host's stalls,
 * and the lone-add floor's figures (a floor run after each run) with each run's ratio to its floor run.
 */
export async function benchLocal(opts: { workers: number; runs?: number }): Promise<LocalBenchResult> {
  const host = hostStalls();
  const runs: LocalRun[] = [];
  const floors: LocalRun[] = [];
  const pooled: number[] = [];
  for (let i = 0; i < (opts.runs ?? 3); i += 1) {
    const [measurement] = await runOnce(opts.workers);
    if (measurement === undefined) throw new Error('a run measured no subscriber');
    const { run, latencies } = measurement;
    runs.push(run);
    pooled.push(...latencies);
    floors.push(await benchLocalFloor(opts.workers));
  }
  pooled.sort((a, b) => a - b);
  return {
    suite: 'local',
    workers: opts.workers,
    p50_us: median(runs.map((r) => r.p50_us)),
    p99_us: median(runs.map((r) => r.p99_us)),
    cpu_us_per_event: median(runs.map((r) => r.cpu_us_per_event)),
    subscriber_gcs: median(runs.map((r) => r.subscriber_gcs)),
    publisher_gcs: median(runs.map((r) => r.publisher_gcs)),
    pooled_p50_us: Math.round(percentile(pooled, 50)),
    pooled_p99_us: Math.round(percentile(pooled, 99)),
    runs,
    host_stalls_per_s: host.perSecond,
    host_max_stall_us: host.maxUs,
    floor_p50_us: median(floors.map((r) => r.p50_us)),
    floor_p99_us: median(floors.map((r) => r.p99_us)),
    floor_cpu_us_per_event: median(floors.map((r) => r.cpu_us_per_event)),
    floor_runs: floors,
    p50_ratio: spread(runs.map((r, i) => r.p50_us / (floors[i]?.p50_us ?? Number.NaN))),
    p99_ratio: spread(runs.map((r, i) => r.p99_us / (floors[i]?.p99_us ?? Number.NaN))),
    cpu_ratio: spread(runs.map((r, i) => r.cpu_us_per_event / (floors[i]?.cpu_us_per_event ?? Number.NaN))),
  };
}

/**
 * The floor under the add → event path, the lone-add floor: a bare
 * publisher process (bench/local/bareProcess.ts) makes the very system
 * calls of a woolrx lone add — the lock taken afresh, the path checks, the
 * slot table, the intent record, the block, the slot, the journal record
 * and head, the lock released, then the notification — and a bare
 * subscriber process (bench/local/bareSubscriberProcess.ts) the reads a
 * woolrx subscriber makes for it: the inotify wake-up (the notification
 * directory and file watched), the journal head, the record, the head
 * again, the record's slot. No validation, encoding, decoding, promise or
 * event. `writes` timed adds 1 ms apart (as the row's), after
 * {@link FLOOR_WARMUP} untimed ones and a GC; latency = the add's start →
 * the bare subscriber holding the record's bytes (CLOCK_MONOTONIC).
 * test/bench/bareFloor.test.ts checks both against woolrx under strace.
 * @param writes How many timed adds.
 * @returns p50/p99 latency in µs, and the bare subscriber's CPU per add seen.
 */
export async function benchLocalFloor(writes: number): Promise<LocalRun> {
  const ns = bareNamespace(writes + FLOOR_WARMUP);
  const children: ChildProcess[] = [];
  let measured = false;
  try {
    const subscriber = spawnChild('bareSubscriberProcess.ts', [
      ns.dir,
      ns.notify,
      String(writes),
      String(FLOOR_WARMUP),
      String(writes + FLOOR_WARMUP),
    ]);
    children.push(subscriber.child);
    await subscriber.next('ready');
    const publisher = spawnChild('bareProcess.ts', [
      ns.dir,
      ns.woolLock,
      ns.notify,
      String(writes),
      String(writes + FLOOR_WARMUP),
      '0',
      '0',
      `lone:${FLOOR_WARMUP}`,
      String(writes),
    ]);
    children.push(publisher.child);
    await publisher.next('ready');
    publisher.child.send({ op: 'run' });
    const [{ starts }, { arrivals, cpuUs }] = (await Promise.all([
      publisher.next('starts'),
      subscriber.next('arrivals'),
    ])) as [{ starts: string[] }, { arrivals: [number, string][]; cpuUs: number }];
    const arrived = new Map(arrivals);
    const latencies = starts
      .map((start, i) => {
        const at = arrived.get(i);
        if (at === undefined) throw new Error(`the bare subscriber never read add ${i}`);
        return Number(BigInt(at) - BigInt(start)) / 1000;
      })
      .sort((a, b) => a - b);
    measured = true;
    return {
      p50_us: Math.round(percentile(latencies, 50)),
      p99_us: Math.round(percentile(latencies, 99)),
      cpu_us_per_event: Math.round((cpuUs / writes) * 10) / 10,
      subscriber_gcs: 0,
      publisher_gcs: 0,
    };
  } finally {
    // Failed: a child may wait for what will not come.
    if (!measured) for (const child of children) child.kill();
    await Promise.all(children.map(exited));
    ns.remove();
  }
}

function exited(child: ChildProcess): Promise<unknown> {
  return new Promise((resolve) =>
    child.exitCode !== null || child.signalCode !== null ? resolve(null) : child.once('exit', resolve),
  );
}

/**
 * One measurement: each subscriber's figures, and its latencies in µs,
 * sorted. One publisher; `subscribers` subscriber processes watch the same
 * adds at once (one, for the row; two, for {@link benchLocalTwins}).
 */
async function runOnce(
  workers: number,
  subscribers = 1,
  warmup = WARMUP,
): Promise<Array<{ run: LocalRun; latencies: number[] }>> {
  const namespace = `woolrx-bench-${process.pid}-${randomUUID().slice(0, 8)}`;
  // Warm-up: fill the namespace with up to 1,000 workers and drain it, until
  // `warmup` workers have been added.
  const size = Math.min(workers, 1_000);
  const rounds = Math.ceil(warmup / size);
  const subs = Array.from({ length: subscribers }, () =>
    spawnChild('subscriberProcess.ts', [namespace, String(workers), String(rounds * size)]),
  );
  const publisher = spawnChild('publisherProcess.ts', [namespace, String(workers), '1']);
  const all = async (key: string): Promise<Array<Record<string, unknown>>> =>
    Promise.all(subs.map((subscriber) => subscriber.next(key)));
  let measured = false;
  try {
    await Promise.all([all('ready'), publisher.next('ready')]);
    publisher.child.send({ op: 'warmup', rounds, size });
    await Promise.all([all('warm'), publisher.next('warmed')]);
    for (const subscriber of subs) subscriber.child.send({ op: 'start' });
    await all('started');
    publisher.child.send({ op: 'run' });
    const { starts } = (await publisher.next('starts')) as { starts: [string, string][] };
    await all('done');
    const reports: Array<{ arrivals: [string, string][]; cpuUs: number; gcs: number }> = [];
    for (const subscriber of subs) {
      subscriber.child.send({ op: 'report' });
      reports.push((await subscriber.next('arrivals')) as (typeof reports)[number]);
    }
    publisher.child.send({ op: 'gcs' });
    const { gcs: publisherGcs } = (await publisher.next('gcs')) as { gcs: number };
    const results = reports.map(({ arrivals, cpuUs, gcs }) => {
      const arrived = new Map(arrivals.map(([uid, t]) => [uid, BigInt(t)]));
      const latencies = starts
        .map(([uid, t]) => {
          const at = arrived.get(uid);
          if (at === undefined) throw new Error(`worker ${uid} never arrived`);
          return Number(at - BigInt(t)) / 1000;
        })
        .sort((a, b) => a - b);
      const run: LocalRun = {
        p50_us: Math.round(percentile(latencies, 50)),
        p99_us: Math.round(percentile(latencies, 99)),
        cpu_us_per_event: Math.round((cpuUs / workers) * 10) / 10,
        subscriber_gcs: gcs,
        publisher_gcs: publisherGcs,
      };
      return { run, latencies };
    });
    measured = true;
    return results;
  } finally {
    const children = [publisher.child, ...subs.map((subscriber) => subscriber.child)];
    if (measured) {
      publisher.child.send({ op: 'stop' });
      await publisher.next('stopped').catch(() => undefined);
      for (const subscriber of subs) subscriber.child.send({ op: 'stop' });
    } else {
      // Failed (a child died, or sent what was not expected): the others may
      // wait for what will not come, and one that died cannot be told to
      // stop; left running, it would outlive the bench.
      for (const child of children) child.kill();
    }
    await Promise.all(children.map(exited));
    if (!measured) removeBenchNamespace(namespace);
  }
}

/** Result of {@link benchLocalTwins}. */
export interface LocalTwinsResult {
  /** Each run's two subscribers, the cheaper first: CPU per event (µs) and p50 (µs). */
  runs: Array<{ cpu_us_per_event: [number, number]; p50_us: [number, number] }>;
  /** Each run's dearer CPU per event over its cheaper: min, median, max. */
  cpu_spread: Spread;
  /** Each run's higher p50 over its lower. */
  p50_spread: Spread;
}

/**
 * Two woolrx subscriber processes — the same code, the same options —
 * watching the same paced adds of one publisher at the same time, each
 * warmed up and measured as the row's subscriber is: how far apart two
 * processes of the same code come, the dearer over the cheaper, per run.
 * No code tells them apart, so the spread is what this machine does to a
 * process (where the scheduler runs it, what it shares a CPU with): the
 * part of any run-over-run ratio that is not the code's. For comparison,
 * not a target (docs/backends/local.md, "Ninth round").
 * @param opts `workers` timed adds (and the namespace's capacity); `runs`
 * (default 3); `warmup`: untimed adds first, as the row's (default 10,000).
 * @returns Each run's pair, and the spreads.
 */
export async function benchLocalTwins(opts: {
  workers: number;
  runs?: number;
  warmup?: number;
}): Promise<LocalTwinsResult> {
  const runs: LocalTwinsResult['runs'] = [];
  for (let i = 0; i < (opts.runs ?? 3); i += 1) {
    const [a, b] = (await runOnce(opts.workers, 2, opts.warmup)).map(({ run }) => run);
    if (a === undefined || b === undefined) throw new Error('a twin run measured fewer than two subscribers');
    const pair = (x: number, y: number): [number, number] => (x <= y ? [x, y] : [y, x]);
    runs.push({
      cpu_us_per_event: pair(a.cpu_us_per_event, b.cpu_us_per_event),
      p50_us: pair(a.p50_us, b.p50_us),
    });
  }
  return {
    runs,
    cpu_spread: spread(runs.map((r) => r.cpu_us_per_event[1] / r.cpu_us_per_event[0])),
    p50_spread: spread(runs.map((r) => r.p50_us[1] / r.p50_us[0])),
  };
}
