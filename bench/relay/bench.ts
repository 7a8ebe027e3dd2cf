/**
 * Relay benchmark: `relayWorkers(localDiscovery, etcdDiscovery)` against its
 * own single-node etcd on loopback (started and stopped here), everything
 * in this process. Each figure comes with its floor, measured in the same
 * run, interleaved:
 *
 * - add → event. Three chains, one add at a time (each worker dropped again,
 *   untimed, before the next), `SAMPLES` samples each after `WARMUP`, in `ROUNDS` interleaved
 * rounds (medians of the rounds'
 *   p50s):
 *   - local: a local publisher adds a worker, a local subscriber receives
 *     `worker-added` (the source's own add → event);
 *   - etcd: an etcd publisher adds a worker, an etcd subscriber receives it
 *     (the target's own add → event);
 *   - relayed: a local publisher adds a worker, a running relay copies it
 *     into etcd, an etcd subscriber receives it.
 *   Target: relayed p50 ≤ local p50 + etcd p50 + 1 ms.
 * - initial relay: a local namespace holds `workers` workers; a relay is
 *   subscribed and timed until its status says every one is written and
 *   acknowledged (`synced`, `relayed === workers`). Floor: the etcd
 *   backend's own publish of the same workers — one publisher, every
 *   `publish('worker-added')` issued at once (as the relay does), timed until
 *   all resolved. Median of `ROUNDS` runs, interleaved. Target ≤ 1.5×.
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { filter, firstValueFrom, type Subscription } from 'rxjs';
import { etcdDiscovery } from '../../src/backends/etcd/etcdDiscovery.js';
import { localDiscovery } from '../../src/backends/local/localDiscovery.js';
import type { Discovery } from '../../src/discovery/types.js';
import type { WorkerInfo } from '../../src/model/types.js';
import { workerInfo } from '../../src/model/workerInfo.js';
import { relayWorkers } from '../../src/relay/relayWorkers.js';
import { startEtcd } from '../../test/backends/etcd/etcdHarness.js';

const SAMPLES = 300;
const WARMUP = 30;
const ROUNDS = 3;

/** Result of {@link benchRelay}, as the bench runner's `--json` line. */
export interface RelayBenchResult {
  suite: 'relay';
  workers: number;
  local_p50_ms: number;
  etcd_p50_ms: number;
  relayed_p50_ms: number;
  relayed_p99_ms: number;
  /** `relayed_p50_ms - (local_p50_ms + etcd_p50_ms)`: the target is ≤ 1. */
  relayed_excess_ms: number;
  initial_relay_ms: number;
  initial_relay_runs_ms: number[];
  etcd_publish_ms: number;
  etcd_publish_runs_ms: number[];
  /** `initial_relay_ms / etcd_publish_ms`: the target is ≤ 1.5. */
  initial_ratio: number;
}

function worker(i: number, host = '127.0.0.1'): WorkerInfo {
  return workerInfo({
    uid: randomUUID(),
    address: `${host}:${20_000 + (i % 40_000)}`,
    pid: process.pid,
    version: '1.0.0',
    tags: ['cpu', i % 2 === 0 ? 'even' : 'odd'],
    extra: { zone: `z${i % 8}` },
  });
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

const median = (values: readonly number[]): number =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;
const round = (ms: number): number => Number(ms.toFixed(3));
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Times `count` adds, one at a time, from `publishTo` until `watchOn` reports each; returns the latencies, sorted. */
async function addToEvent(publishTo: Discovery, watchOn: Discovery, count: number, host?: string): Promise<number[]> {
  let waiting: { type: string; uid: string; resolve: (at: number) => void } | undefined;
  const subscription = watchOn.events().subscribe((event) => {
    if (waiting !== undefined && event.type === waiting.type && event.worker.uid === waiting.uid)
      waiting.resolve(performance.now());
  });
  const publisher = publishTo.publisher();
  const latencies: number[] = [];
  try {
    for (let i = 0; i < count; i++) {
      const next = worker(i, host);
      const seen = new Promise<number>((resolve) => (waiting = { type: 'worker-added', uid: next.uid, resolve }));
      const start = performance.now();
      await publisher.publish('worker-added', next);
      latencies.push((await seen) - start);
      // Dropped again (not timed), so that every sample sees the same small namespace.
      const gone = new Promise<number>((resolve) => (waiting = { type: 'worker-dropped', uid: next.uid, resolve }));
      await publisher.publish('worker-dropped', next);
      await gone;
    }
  } finally {
    subscription.unsubscribe();
    await publisher.close();
  }
  return latencies.slice(WARMUP).sort((a, b) => a - b);
}

/** Waits until the etcd namespace is empty (a relay's background withdrawal). */
async function emptied(discovery: Discovery): Promise<void> {
  await firstValueFrom(discovery.snapshots().pipe(filter((snapshot) => snapshot.size === 0)));
}

/**
 * Runs the benchmark.
 * @param opts `workers`: how many local workers the initial relay copies.
 * @returns The three add → event p50s, the initial relay and its floor, in ms.
 */
export async function benchRelay(opts: { workers: number }): Promise<RelayBenchResult> {
  const { workers } = opts;
  const etcd = await startEtcd();
  const tag = `${process.pid}-${Date.now().toString(36)}`;
  try {
    const endpoints = etcd.endpoints;

    // add → event: local, etcd, relayed — interleaved rounds.
    const local = localDiscovery(`bench-relay-lat-${tag}`);
    const etcdOwn = etcdDiscovery(`bench-relay-own-${tag}`, { endpoints });
    const relayTarget = etcdDiscovery(`bench-relay-lat-${tag}`, { endpoints });
    const relay: Subscription = relayWorkers(local, relayTarget, {
      advertiseHost: '10.0.0.7',
      id: 'bench',
    }).subscribe();
    const localP50: number[] = [];
    const etcdP50: number[] = [];
    const relayedP50: number[] = [];
    const relayedAll: number[] = [];
    try {
      await sleep(300);
      for (let round = 0; round < ROUNDS; round++) {
        localP50.push(percentile(await addToEvent(local, local, WARMUP + SAMPLES), 50));
        etcdP50.push(percentile(await addToEvent(etcdOwn, etcdOwn, WARMUP + SAMPLES, '10.0.0.8'), 50));
        const relayed = await addToEvent(local, relayTarget, WARMUP + SAMPLES);
        relayedP50.push(percentile(relayed, 50));
        relayedAll.push(...relayed);
      }
    } finally {
      relay.unsubscribe();
    }
    relayedAll.sort((a, b) => a - b);

    // Initial relay of `workers` local workers, against the etcd backend's own publish of as many.
    const sourceNs = `bench-relay-bulk-${tag}`;
    const source = localDiscovery(sourceNs, { capacity: workers + 16 });
    const filler = source.publisher();
    const bulk = Array.from({ length: workers }, (_, i) => worker(i));
    await Promise.all(bulk.map((w) => filler.publish('worker-added', w)));
    const relayRuns: number[] = [];
    const floorRuns: number[] = [];
    try {
      for (let run = 0; run < ROUNDS; run++) {
        // Floor: one etcd publisher, every add issued at once, until all resolved.
        const own = etcdDiscovery(`bench-relay-floor-${tag}-${run}`, { endpoints });
        const publisher = own.publisher();
        const copies = bulk.map((w) => workerInfo({ ...w, address: w.address.replace('127.0.0.1', '10.0.0.7') }));
        let start = performance.now();
        await Promise.all(copies.map((w) => publisher.publish('worker-added', w)));
        floorRuns.push(performance.now() - start);
        await publisher.close();

        // The relay, from subscribe until every worker is written and acknowledged.
        const target = etcdDiscovery(`bench-relay-into-${tag}-${run}`, { endpoints });
        start = performance.now();
        let subscription: Subscription | undefined;
        await new Promise<void>((resolve, reject) => {
          subscription = relayWorkers(source, target, { advertiseHost: '10.0.0.7', id: 'bench-bulk' }).subscribe({
            next: (item) => {
              if (item.type === 'relay-status' && item.synced && item.relayed === workers) resolve();
            },
            error: reject,
          });
        });
        relayRuns.push(performance.now() - start);
        subscription?.unsubscribe();
        await emptied(target);
      }
    } finally {
      await filler.close();
    }
    const relayMs = median(relayRuns);
    const floorMs = median(floorRuns);
    const l = median(localP50);
    const e = median(etcdP50);
    const r = median(relayedP50);
    return {
      suite: 'relay',
      workers,
      local_p50_ms: round(l),
      etcd_p50_ms: round(e),
      relayed_p50_ms: round(r),
      relayed_p99_ms: round(percentile(relayedAll, 99)),
      relayed_excess_ms: round(r - (l + e)),
      initial_relay_ms: round(relayMs),
      initial_relay_runs_ms: relayRuns.map(round),
      etcd_publish_ms: round(floorMs),
      etcd_publish_runs_ms: floorRuns.map(round),
      initial_ratio: Number((relayMs / floorMs).toFixed(3)),
    };
  } finally {
    await etcd.dispose();
  }
}
