/**
 * LAN backend benchmark: add → event latency over real mDNS between two
 * network namespaces ("hosts") joined by a veth pair, which the bench
 * creates and deletes itself (it needs root; mDNS never touches the host's
 * own interfaces). The publisher in namespace A publishes N workers, one
 * every few ms without waiting for the previous, noting CLOCK_MONOTONIC
 * just before each publish; the subscriber in namespace B notes the same
 * clock at each `worker-added`. Latency = arrival − publish, per worker;
 * with `probe`, it includes the RFC 6762 probing (~0.75 s).
 */
import type { ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { Netns } from '../../test/backends/lan/netns.js';

/** Result of {@link benchLan}. */
export interface LanBenchResult {
  suite: 'lan';
  workers: number;
  probe: boolean;
  p50_ms: number;
  p99_ms: number;
}

const INTERVAL_MS = 10;

function lines(child: ChildProcess, onLine: (message: Record<string, unknown>) => void): void {
  createInterface({ input: child.stdout! }).on('line', (line) => {
    try {
      onLine(JSON.parse(line) as Record<string, unknown>);
    } catch {
      process.stderr.write(`${line}\n`);
    }
  });
  child.stderr?.on('data', (chunk: Buffer) => process.stderr.write(chunk));
}

function percentile(sorted: readonly number[], p: number): number {
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index] ?? Number.NaN;
}

/**
 * Runs the LAN add → event benchmark once.
 * @param opts `workers`: how many workers to publish; `probe`: probe before announcing.
 * @returns p50/p99 latency in ms.
 */
export async function benchLan(opts: { workers: number; probe: boolean }): Promise<LanBenchResult> {
  const { workers, probe } = opts;
  const pair = Netns.pair('bench', 9);
  const children: ChildProcess[] = [];
  try {
    const namespace = `bench-${process.pid}-${String(probe)}`;
    const arrivals = new Map<string, bigint>();
    const starts = new Map<string, bigint>();
    let arrived: () => void = () => undefined;
    const allArrived = new Promise<void>((resolve) => (arrived = resolve));
    const subscriber = pair.b.spawnNode('bench/lan/subscriberProcess.ts', [namespace]);
    children.push(subscriber);
    let ready: () => void = () => undefined;
    const subscribed = new Promise<void>((resolve) => (ready = resolve));
    lines(subscriber, (message) => {
      if (message['ready'] === true) ready();
      if (typeof message['error'] === 'string') throw new Error(`subscriber: ${message['error']}`);
      if (typeof message['uid'] === 'string' && typeof message['t'] === 'string') {
        arrivals.set(message['uid'], BigInt(message['t']));
        if ([...starts.keys()].length === workers && [...starts.keys()].every((uid) => arrivals.has(uid))) arrived();
      }
    });
    await subscribed;
    await sleep(300); // bound, first query out
    const publisher = pair.a.spawnNode('bench/lan/publisherProcess.ts', [
      namespace,
      String(workers),
      String(probe),
      '10.213.9.1',
      String(INTERVAL_MS),
    ]);
    children.push(publisher);
    lines(publisher, (message) => {
      if (typeof message['uid'] === 'string' && typeof message['t'] === 'string')
        starts.set(message['uid'], BigInt(message['t']));
      if (starts.size === workers && [...starts.keys()].every((uid) => arrivals.has(uid))) arrived();
    });
    const deadline = workers * INTERVAL_MS + 15_000;
    const timeout = new AbortController();
    const outcome = await Promise.race([
      allArrived.then(() => 'ok' as const),
      sleep(deadline, undefined, { signal: timeout.signal }).then(
        () => 'timeout' as const,
        () => 'ok' as const,
      ),
    ]);
    timeout.abort();
    if (outcome === 'timeout') {
      const missing = [...starts.keys()].filter((uid) => !arrivals.has(uid)).length;
      throw new Error(`LAN bench: ${missing} of ${workers} workers never arrived within ${deadline} ms`);
    }
    const latencies = [...starts]
      .map(([uid, start]) => Number((arrivals.get(uid) ?? start) - start) / 1e6)
      .sort((x, y) => x - y);
    publisher.stdin?.end();
    subscriber.stdin?.end();
    return {
      suite: 'lan',
      workers,
      probe,
      p50_ms: Number(percentile(latencies, 50).toFixed(3)),
      p99_ms: Number(percentile(latencies, 99).toFixed(3)),
    };
  } finally {
    for (const child of children) child.kill('SIGKILL');
    pair.a.dispose();
    pair.b.dispose();
  }
}
