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
 */
import { fork, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));

/** Result of {@link benchLocal}. */
export interface LocalBenchResult {
  suite: 'local';
  workers: number;
  p50_us: number;
  p99_us: number;
  cpu_us_per_event: number;
}

function spawnChild(script: string, args: string[]): { child: ChildProcess; next: (key: string) => Promise<Record<string, unknown>> } {
  // WOOLRX_BENCH_PROF=<script> writes a V8 CPU profile of that child to ./bench-profiles.
  const profile = process.env['WOOLRX_BENCH_PROF'] === script ? ['--cpu-prof', '--cpu-prof-dir=bench-profiles'] : [];
  const child = fork(join(HERE, script), args, {
    execArgv: ['--import', 'tsx', ...profile],
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

/**
 * Runs the local add → event benchmark.
 * @param opts `workers`: how many workers to register (and the namespace capacity).
 * @returns p50/p99 latency in µs and subscriber CPU µs per event.
 */
export async function benchLocal(opts: { workers: number }): Promise<LocalBenchResult> {
  const workers = opts.workers;
  const namespace = `woolrx-bench-${process.pid}-${randomUUID().slice(0, 8)}`;
  const subscriber = spawnChild('subscriberProcess.ts', [namespace, String(workers)]);
  const publisher = spawnChild('publisherProcess.ts', [namespace, String(workers), '1']);
  try {
    await Promise.all([subscriber.next('ready'), publisher.next('ready')]);
    subscriber.child.send({ op: 'start' });
    await subscriber.next('started');
    publisher.child.send({ op: 'run' });
    const { starts } = (await publisher.next('starts')) as { starts: [string, string][] };
    await subscriber.next('done');
    subscriber.child.send({ op: 'report' });
    const { arrivals, cpuUs } = (await subscriber.next('arrivals')) as { arrivals: [string, string][]; cpuUs: number };
    const arrived = new Map(arrivals.map(([uid, t]) => [uid, BigInt(t)]));
    const latencies = starts
      .map(([uid, t]) => {
        const at = arrived.get(uid);
        if (at === undefined) throw new Error(`worker ${uid} never arrived`);
        return Number(at - BigInt(t)) / 1000;
      })
      .sort((a, b) => a - b);
    return {
      suite: 'local',
      workers,
      p50_us: Math.round(percentile(latencies, 50)),
      p99_us: Math.round(percentile(latencies, 99)),
      cpu_us_per_event: Math.round((cpuUs / workers) * 10) / 10,
    };
  } finally {
    publisher.child.send({ op: 'stop' });
    await publisher.next('stopped').catch(() => undefined);
    subscriber.child.send({ op: 'stop' });
    await Promise.all(
      [publisher.child, subscriber.child].map(
        (child) => new Promise((resolve) => (child.exitCode !== null ? resolve(null) : child.once('exit', resolve))),
      ),
    );
  }
}
