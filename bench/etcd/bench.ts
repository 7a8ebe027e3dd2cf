/**
 * etcd backend benchmark, against its own single-node etcd on loopback
 * (started and stopped here, data on tmpfs):
 *
 * - add → event: a publisher adds a worker, a subscriber (another client of
 *   the same process) receives `worker-added`; one at a time, 500 samples
 *   after 50 warm-up ones. Target p50 ≤ 10 ms.
 * - sync: a new discovery (new client, new connection) subscribes to a
 *   namespace holding `workers` workers; time until it has received every
 *   `worker-added`. Median of 3. Target ≤ 1 s for 10 000.
 * - raw read (the floor of the sync): a bare etcd3 client (new client, new
 *   connection) reads the same keys with one prefix range request, values
 *   as buffers, nothing decoded. Median of 3, interleaved with the sync
 *   runs; the ratio sync / raw is reported, of the medians and of each run
 *   (a sync and the raw read right after it). Target ratio ≤ 1.5.
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Etcd3 } from 'etcd3';
import { etcdDiscovery } from '../../src/backends/etcd/etcdDiscovery.js';
import type { DiscoveryEvent } from '../../src/events/types.js';
import { workerInfo } from '../../src/model/workerInfo.js';
import type { WorkerInfo } from '../../src/model/types.js';
import { startEtcd } from '../../test/backends/etcd/etcdHarness.js';

/** Result of {@link benchEtcd}, as the bench runner's `--json` line. */
export interface EtcdBenchResult {
  suite: 'etcd';
  workers: number;
  p50_ms: number;
  p99_ms: number;
  sync_ms: number;
  /** Every sync run, sorted. */
  sync_runs_ms: number[];
  raw_ms: number;
  /** Every raw read run, sorted. */
  raw_runs_ms: number[];
  /** `sync_ms / raw_ms`. */
  sync_raw_ratio: number;
  /** Each run's sync / the raw read right after it, in run order. */
  sync_raw_ratio_runs: number[];
}

const SAMPLES = 500;
const WARMUP = 50;
const PUBLISHERS = 16;

function worker(i: number): WorkerInfo {
  return workerInfo({
    uid: randomUUID(),
    address: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}:50051`,
    pid: 1000 + (i % 30000),
    version: '1.0.0',
    tags: ['cpu', i % 2 === 0 ? 'even' : 'odd'],
    extra: { zone: `z${i % 8}` },
  });
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

const round = (ms: number): number => Number(ms.toFixed(3));

/**
 * One bare prefix read of `prefix` through a new etcd3 client: what any
 * initial sync has to pay at least (the request, etcd's work, the transfer
 * and the gRPC decoding), with nothing decoded or emitted.
 */
async function rawRead(endpoints: readonly string[], prefix: string, expected: number): Promise<number> {
  const client = new Etcd3({
    hosts: [...endpoints],
    // The same message limit as the backend's client (the default 4 MiB is too small for 100 000 workers).
    grpcOptions: { 'grpc.max_receive_message_length': 64 * 1024 * 1024 },
  });
  try {
    const start = performance.now();
    const values = await client.getAll().prefix(prefix).buffers();
    const elapsed = performance.now() - start;
    const count = Object.keys(values).length;
    if (count !== expected) throw new Error(`raw read: got ${count} keys, expected ${expected}`);
    return elapsed;
  } finally {
    client.close();
  }
}

/**
 * Runs the benchmark.
 * @param opts `workers`: how many existing workers the initial sync reads.
 * @returns p50/p99 of add → event, the initial sync time and the raw read
 * of the same keys, in ms.
 */
export async function benchEtcd(opts: { workers: number }): Promise<EtcdBenchResult> {
  const { workers } = opts;
  const etcd = await startEtcd();
  try {
    const endpoints = etcd.endpoints;

    // add → event
    const latencyNamespace = `bench-latency-${process.pid}`;
    const subscriberSide = etcdDiscovery(latencyNamespace, { endpoints });
    const publisher = etcdDiscovery(latencyNamespace, { endpoints }).publisher();
    let waiting: { uid: string; resolve: (at: number) => void } | undefined;
    const subscription = subscriberSide.events().subscribe((event: DiscoveryEvent) => {
      if (waiting !== undefined && event.type === 'worker-added' && event.worker.uid === waiting.uid) {
        waiting.resolve(performance.now());
      }
    });
    await publisher.publish('worker-added', worker(0)); // connect both sides
    await new Promise((resolve) => setTimeout(resolve, 200));
    const latencies: number[] = [];
    for (let i = 1; i <= WARMUP + SAMPLES; i++) {
      const next = worker(i);
      const seen = new Promise<number>((resolve) => (waiting = { uid: next.uid, resolve }));
      const start = performance.now();
      await publisher.publish('worker-added', next);
      const at = await seen;
      if (i > WARMUP) latencies.push(at - start);
    }
    subscription.unsubscribe();
    await publisher.close();
    latencies.sort((a, b) => a - b);

    // initial sync of `workers` existing workers
    const syncNamespace = `bench-sync-${process.pid}`;
    const filling = etcdDiscovery(syncNamespace, { endpoints, ttl: 60 });
    const publishers = Array.from({ length: PUBLISHERS }, () => filling.publisher());
    await Promise.all(
      publishers.map(async (p, k) => {
        for (let i = k; i < workers; i += PUBLISHERS) await p.publish('worker-added', worker(i));
      }),
    );
    const syncs: number[] = [];
    const raws: number[] = [];
    const syncPrefix = `/woolrx/${syncNamespace}/workers/`;
    for (let run = 0; run < 3; run++) {
      const discovery = etcdDiscovery(syncNamespace, { endpoints });
      let count = 0;
      const start = performance.now();
      const done = await new Promise<number>((resolve) => {
        const sub = discovery.events().subscribe(() => {
          count++;
          if (count === workers) {
            resolve(performance.now());
            setImmediate(() => sub.unsubscribe());
          }
        });
      });
      syncs.push(done - start);
      raws.push(await rawRead(endpoints, syncPrefix, workers));
    }
    const ratios = syncs.map((sync, run) => Number((sync / (raws[run] as number)).toFixed(3)));
    await Promise.all(publishers.map((p) => p.close()));
    syncs.sort((a, b) => a - b);
    raws.sort((a, b) => a - b);
    const syncMs = syncs[1] ?? Number.NaN;
    const rawMs = raws[1] ?? Number.NaN;

    return {
      suite: 'etcd',
      workers,
      p50_ms: round(percentile(latencies, 50)),
      p99_ms: round(percentile(latencies, 99)),
      sync_ms: round(syncMs),
      sync_runs_ms: syncs.map(round),
      raw_ms: round(rawMs),
      raw_runs_ms: raws.map(round),
      sync_raw_ratio: Number((syncMs / rawMs).toFixed(3)),
      sync_raw_ratio_runs: ratios,
    };
  } finally {
    await etcd.dispose();
  }
}
