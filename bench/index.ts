/**
 * Benchmark runner: `npm run bench -- [--suite core|local|lan|etcd|flock|relay|all, or a comma
 * list] [--workers N] [--runs R] [--json] [--report]`.
 *
 * `--runs R` (local suite; default 3): repeat the measurement R times and
 * report the median of each figure. The LAN late joiner runs R joiners
 * and reports min/median/max.
 *
 * `--local-rows` (local suite; default `latency,bulk,memory`): which local
 * tables to measure: add → event latency (with its floor, and two identical
 * subscribers on the same adds: the spread of the same code), bulk publish
 * (1 × 10 000 and 10 × 1 000 publishes, and 10 × 1 000 warm: the
 * restatement proposed in docs/backends/local.md), subscriber memory with
 * 10 000 workers (or `--workers N`, as the latency table).
 *
 * `--lan-rows` (lan suite; default `signing,add,late`): which LAN tables to
 * measure: signing cost, add → event latency (`--workers N`, default 200),
 * late joiner (1 000 and 5 000 workers, or `--workers N`).
 *
 * The etcd suite syncs 100 000 existing workers unless `--workers N`; the
 * relay suite relays 10 000 local workers into etcd unless `--workers N`.
 *
 * Prints a readable table per suite; with `--json`, the last line of output
 * is one JSON object per the issue contracts (for `--suite local`:
 * `{"suite":"local","workers":N,"p50_us":…,"p99_us":…}`).
 *
 * With no `--suite` (every suite) or with `--report`, a suite that fails is noted instead of ending the run, the
 * local suite also measures add → event latency at 100, 1 000, 5 000 and
 * 10 000 registered workers, and docs/benchmarks.md plus
 * docs/images/local-latency.svg are written (bench/report.ts).
 */
import { cpus, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import {
  LATENCY_SWEEP,
  machineInfo,
  writeReport,
  type FloorRow,
  type LatencyPoint,
  type ReportTable,
} from './report.js';

interface Row {
  name: string;
  value: number;
  unit: string;
}

const { values } = parseArgs({
  options: {
    suite: { type: 'string', default: 'all' },
    workers: { type: 'string' },
    runs: { type: 'string' },
    json: { type: 'boolean', default: false },
    report: { type: 'boolean' },
    'lan-rows': { type: 'string', default: 'signing,add,late' },
    'local-rows': { type: 'string', default: 'latency,bulk,memory' },
  },
  allowPositionals: false,
});

// `npm run bench` with no --suite runs everything and writes the report;
// a chosen suite only prints, unless --report is given.
const report = values.report ?? values.suite === 'all';

const SUITES = ['core', 'local', 'lan', 'etcd', 'flock', 'relay'] as const;
type Suite = (typeof SUITES)[number];

function usage(message: string): never {
  process.stderr.write(
    `${message}\nusage: npm run bench -- [--suite ${SUITES.join('|')}|all] [--workers N] [--runs R] [--local-rows latency,bulk,memory] [--lan-rows signing,add,late] [--json] [--report]\n`,
  );
  process.exit(2);
}

// `--suite` takes one suite, a comma-separated list, or `all`.
const suites: readonly Suite[] =
  values.suite === 'all'
    ? SUITES
    : values.suite
        .split(',')
        .map((name) =>
          (SUITES as readonly string[]).includes(name) ? (name as Suite) : usage(`unknown suite: ${name}`),
        );
const workersArg = values.workers === undefined ? undefined : Number(values.workers);
if (workersArg !== undefined && !(Number.isSafeInteger(workersArg) && workersArg > 0)) {
  usage(`--workers must be a positive integer, got ${values.workers}`);
}

const runsArg = values.runs === undefined ? 3 : Number(values.runs);
if (!(Number.isSafeInteger(runsArg) && runsArg > 0)) usage(`--runs must be a positive integer, got ${values.runs}`);

const tables: ReportTable[] = [];
/** The local rows against their floors, for the report. */
const floorRows: FloorRow[] = [];
let currentSuite = '';

function printTable(title: string, rows: readonly Row[]): void {
  tables.push({ suite: currentSuite, title, rows });
  process.stdout.write(`\n${title}\n`);
  const width = Math.max(...rows.map((r) => r.name.length));
  for (const row of rows) {
    const value = row.value >= 100 ? row.value.toFixed(0) : row.value.toPrecision(3);
    process.stdout.write(`  ${row.name.padEnd(width)}  ${value.padStart(12)} ${row.unit}\n`);
  }
}

async function runCore(): Promise<Record<string, unknown>> {
  const { benchCodec } = await import('./core/codec.js');
  const { benchDiffSnapshots } = await import('./core/diffSnapshots.js');
  const diff = await benchDiffSnapshots({ workers: workersArg ?? 10_000, changedFraction: 0.01, snapshots: 500 });
  printTable(`diffSnapshots: ${workersArg ?? 10_000} workers, 1 % changed per snapshot`, diff);
  const { benchOperators } = await import('./core/operators.js');
  const operators = await benchOperators({ workers: Math.min(workersArg ?? 10_000, 1_000), events: 200_000 });
  printTable(`event operators: 200000 events of ${Math.min(workersArg ?? 10_000, 1_000)} workers`, operators);
  const codec = await benchCodec();
  printTable('codec', codec);
  const result: Record<string, unknown> = { suite: 'core', workers: workersArg ?? 10_000 };
  for (const row of [...diff, ...operators, ...codec])
    result[`${row.name} (${row.unit})`] = Number(row.value.toPrecision(4));
  return result;
}

const LOCAL_ROWS = ['latency', 'bulk', 'memory'] as const;

async function runLocal(): Promise<Record<string, unknown>> {
  const rows = new Set(values['local-rows'].split(','));
  for (const row of rows)
    if (!(LOCAL_ROWS as readonly string[]).includes(row))
      usage(`unknown --local-rows entry: ${row} (${LOCAL_ROWS.join(', ')})`);
  const latency = rows.has('latency') ? await runLocalLatency() : {};
  const throughput = rows.has('bulk') ? await runLocalBulk() : {};
  const memory = rows.has('memory') ? await runLocalMemory() : {};
  return { ...latency, ...throughput, ...memory };
}

/** The targets: each local row's ratio to its floor. */
const TARGET = { p50: 1.5, p99: 2, cpu: 1.5, bulk: 1.5, memory: 1.2 } as const;
/** Targets of the rows a restatement proposes (docs/backends/local.md), printed beside the issue's. */
const PROPOSED_TARGET = { bulkWarm: 2, memoryGrowth: 1.2 } as const;

/** `min–max` of a spread, `digits` decimals. */
function range(s: { min: number; max: number }, digits = 0): string {
  return `${s.min.toFixed(digits)}–${s.max.toFixed(digits)}`;
}

async function runLocalLatency(): Promise<Record<string, unknown>> {
  const { benchLocal, benchLocalTwins } = await import('./local/bench.js');
  const workers = workersArg ?? 1_000;
  const result = await benchLocal({ workers, runs: runsArg });
  const each = (key: 'p50_us' | 'p99_us' | 'cpu_us_per_event' | 'subscriber_gcs' | 'publisher_gcs'): string =>
    result.runs.map((r) => r[key]).join(', ');
  const floorEach = (key: 'p50_us' | 'p99_us' | 'cpu_us_per_event'): string =>
    result.floor_runs.map((r) => r[key]).join(', ');
  const ratio = (
    name: string,
    r: { min: number; median: number; max: number },
    target?: number,
  ): { name: string; value: number; unit: string } => ({
    name:
      target === undefined
        ? `${name} (${range(r, 2)}): median`
        : `${name}, each run over the floor run after it (${range(r, 2)}; target ≤ ${target}): median`,
    value: r.median,
    unit: '×',
  });
  printTable(
    `local: add → event, ${workers} workers, publisher and subscriber in separate processes (median of ${result.runs.length} runs, each followed by a floor run)`,
    [
      { name: `p50 (runs: ${each('p50_us')})`, value: result.p50_us, unit: 'µs' },
      { name: `p99 (runs: ${each('p99_us')})`, value: result.p99_us, unit: 'µs' },
      {
        name: `subscriber CPU per event (runs: ${each('cpu_us_per_event')})`,
        value: result.cpu_us_per_event,
        unit: 'µs',
      },
      { name: `p50 of all runs' latencies pooled`, value: result.pooled_p50_us, unit: 'µs' },
      { name: `p99 of all runs' latencies pooled`, value: result.pooled_p99_us, unit: 'µs' },
      {
        name: `GCs in the timed phase, subscriber (runs: ${each('subscriber_gcs')})`,
        value: result.subscriber_gcs,
        unit: 'per run',
      },
      {
        name: `GCs in the timed phase, publisher (runs: ${each('publisher_gcs')})`,
        value: result.publisher_gcs,
        unit: 'per run',
      },
      {
        name: `lone-add floor p50: a bare lone add's system calls → a bare subscriber's reads (runs: ${floorEach('p50_us')})`,
        value: result.floor_p50_us,
        unit: 'µs',
      },
      { name: `lone-add floor p99 (runs: ${floorEach('p99_us')})`, value: result.floor_p99_us, unit: 'µs' },
      {
        name: `floor: the bare subscriber's CPU per event (runs: ${floorEach('cpu_us_per_event')})`,
        value: result.floor_cpu_us_per_event,
        unit: 'µs',
      },
      ratio('p50 / floor p50', result.p50_ratio, TARGET.p50),
      ratio('p99 / floor p99', result.p99_ratio, TARGET.p99),
      ratio("subscriber CPU per event / the bare subscriber's", result.cpu_ratio, TARGET.cpu),
      { name: 'host stalls > 1 ms (busy loop, before the runs)', value: result.host_stalls_per_s, unit: 'per s' },
      { name: 'longest host stall', value: result.host_max_stall_us, unit: 'µs' },
    ],
  );
  const floorName = 'lone-add floor';
  floorRows.push(
    {
      row: `add → event p50, ${workers} workers`,
      unit: 'µs',
      value: spread(result.runs.map((r) => r.p50_us)),
      floor: spread(result.floor_runs.map((r) => r.p50_us)),
      floorName,
      ratio: result.p50_ratio,
      target: TARGET.p50,
    },
    {
      row: `add → event p99, ${workers} workers`,
      unit: 'µs',
      value: spread(result.runs.map((r) => r.p99_us)),
      floor: spread(result.floor_runs.map((r) => r.p99_us)),
      floorName,
      ratio: result.p99_ratio,
      target: TARGET.p99,
    },
    {
      row: 'subscriber CPU per event',
      unit: 'µs',
      value: spread(result.runs.map((r) => r.cpu_us_per_event)),
      floor: spread(result.floor_runs.map((r) => r.cpu_us_per_event)),
      floorName: 'the bare subscriber',
      ratio: result.cpu_ratio,
      target: TARGET.cpu,
    },
  );
  const twins = await benchLocalTwins({ workers, runs: runsArg });
  const pairs = (key: 'cpu_us_per_event' | 'p50_us'): string =>
    twins.runs.map((r) => `${r[key][0]}/${r[key][1]}`).join(', ');
  printTable(
    `local: two identical subscribers on the same adds, ${workers} workers (${twins.runs.length} runs; for comparison: what this machine does to a process, not the code)`,
    [
      ratio(`CPU per event, the dearer over the cheaper (runs: ${pairs('cpu_us_per_event')} µs)`, twins.cpu_spread),
      ratio(`p50, the higher over the lower (runs: ${pairs('p50_us')} µs)`, twins.p50_spread),
    ],
  );
  floorRows.push({
    row: 'subscriber CPU per event, two identical subscribers on the same adds',
    unit: 'µs',
    value: spread(twins.runs.map((r) => r.cpu_us_per_event[1])),
    floor: spread(twins.runs.map((r) => r.cpu_us_per_event[0])),
    floorName: 'the cheaper of the two (the same code)',
    ratio: twins.cpu_spread,
  });
  return { ...result, twin_cpu_spread: twins.cpu_spread, twin_p50_spread: twins.p50_spread, twin_runs: twins.runs };
}

// Throughput and memory: each measured `runs` times, fresh processes each time, interleaved with its floor.
async function runLocalBulk(): Promise<Record<string, unknown>> {
  const { benchLocalBulk, benchLocalBulkFloor, WARM_ADDS } = await import('./local/bulk.js');
  const bulk: Record<string, unknown> = {};
  // The warm row: the restatement proposed for 10 × 1,000 (docs/backends/local.md), every publisher of
  // the row and of the floor first making WARM_ADDS untimed adds; the others make bulk.ts's default.
  for (const { publishers, perPublisher, warmup } of [
    { publishers: 1, perPublisher: 10_000, warmup: undefined },
    { publishers: 10, perPublisher: 1_000, warmup: undefined },
    { publishers: 10, perPublisher: 1_000, warmup: WARM_ADDS },
  ]) {
    const warm = warmup !== undefined;
    const target = warm ? PROPOSED_TARGET.bulkWarm : TARGET.bulk;
    const runs = [];
    const floors: Array<Awaited<ReturnType<typeof benchLocalBulkFloor>>> = [];
    // With several publishers, also the floor whose waiters retry a busy
    // lock, as a publisher that must not block its event loop must: how much
    // of the gap is the wait itself (docs/backends/local.md).
    const retrying: typeof floors = [];
    // Interleaved (woolrx, floor, woolrx, floor ...): a machine whose speed drifts moves both alike.
    for (let i = 0; i < runsArg; i += 1) {
      runs.push(await benchLocalBulk(warm ? { publishers, perPublisher, warmup } : { publishers, perPublisher }));
      floors.push(
        await benchLocalBulkFloor(warm ? { publishers, perPublisher, warmup } : { publishers, perPublisher }),
      );
      if (publishers > 1 && !warm) {
        retrying.push(await benchLocalBulkFloor({ publishers, perPublisher, wait: 'retry' }));
      }
    }
    const seen = spread(runs.map((r) => r.seen_ms));
    const published = spread(runs.map((r) => r.published_ms));
    const floor = spread(floors.map((r) => r.seen_ms));
    const floorPublished = spread(floors.map((r) => r.published_ms));
    const subscriberCpu = spread(floors.map((r) => r.subscriber_cpu_us_per_change));
    const rowSubscriberCpu = spread(runs.map((r) => r.subscriber_cpu_us_per_change));
    const publisherCpu = spread(runs.map((r) => r.publisher_cpu_us_per_add));
    const publisherMain = spread(runs.map((r) => r.publisher_main_cpu_us_per_add));
    const floorCpu = spread(floors.map((r) => r.cpu_us_per_add));
    const floorMain = spread(floors.map((r) => r.main_cpu_us_per_add));
    const ratios = spread(runs.map((r, i) => r.seen_ms / (floors[i]?.seen_ms ?? NaN)));
    printTable(
      `local: bulk publish, ${publishers} publisher process${publishers > 1 ? 'es' : ''} × ${perPublisher} sequential awaited publish(), a subscriber in another process sees all (${runsArg} runs, each followed by a floor run)${warm ? `; warm: every publisher of the row and of the floor first makes ${WARM_ADDS.toLocaleString('en-US')} untimed adds (proposed)` : ''}`,
      [
        { name: `until the subscriber saw all, median (${range(seen)})`, value: seen.median, unit: 'ms' },
        { name: `until the last publish resolved, median (${range(published)})`, value: published.median, unit: 'ms' },
        {
          name: `the subscriber's CPU per change (${range(rowSubscriberCpu, 1)})`,
          value: rowSubscriberCpu.median,
          unit: 'µs',
        },
        {
          name: `the publishers' CPU per add, every thread (${range(publisherCpu, 1)})`,
          value: publisherCpu.median,
          unit: 'µs',
        },
        {
          name: `the publishers' CPU per add, main threads (${range(publisherMain, 1)}; the rest: V8's compiler and GC threads)`,
          value: publisherMain.median,
          unit: 'µs',
        },
        {
          name: `floor: the same adds' system calls, bare (bench/local/bareProcess.ts), until a bare subscriber read every change (bench/local/bareSubscriberProcess.ts), median (${range(floor)})`,
          value: floor.median,
          unit: 'ms',
        },
        {
          name: `floor: until the last bare add was done, median (${range(floorPublished)})`,
          value: floorPublished.median,
          unit: 'ms',
        },
        {
          name: `floor: CPU per add, all bare publishers, every thread (${range(floorCpu, 1)})`,
          value: floorCpu.median,
          unit: 'µs',
        },
        {
          name: `floor: CPU per add, their main threads (${range(floorMain, 1)})`,
          value: floorMain.median,
          unit: 'µs',
        },
        {
          name: `floor: the bare subscriber's CPU per change (${range(subscriberCpu, 1)})`,
          value: subscriberCpu.median,
          unit: 'µs',
        },
        {
          name: `floor: times the bare subscriber fell a journal ring behind (runs: ${floors.map((r) => r.overruns).join(', ')})`,
          value: spread(floors.map((r) => r.overruns)).median,
          unit: 'per run',
        },
        {
          name: `seen / floor, each run over the floor run after it (${range(ratios, 2)}; ${warm ? 'proposed ' : ''}target ≤ ${target}): median`,
          value: ratios.median,
          unit: '×',
        },
      ],
    );
    floorRows.push({
      row: `bulk ${publishers} × ${perPublisher.toLocaleString('en-US')}, seen by a subscriber${warm ? `, warm (${WARM_ADDS.toLocaleString('en-US')} untimed adds each; proposed)` : ''}`,
      unit: 'ms',
      value: seen,
      floor,
      floorName: 'bare adds, a bare subscriber',
      ratio: ratios,
      target,
    });
    const key = `bulk_${publishers}x${perPublisher}${warm ? '_warm' : ''}`;
    if (retrying.length > 0) {
      const retryFloor = spread(retrying.map((r) => r.seen_ms));
      const retryRatios = spread(runs.map((r, i) => r.seen_ms / (retrying[i]?.seen_ms ?? NaN)));
      printTable(
        `local: bulk publish, ${publishers} × ${perPublisher}: the floor whose bare publishers retry a busy lock as a woolrx publisher does (next turns of the event loop, then 1, 2, 4 ... 20 ms), not blocking in flock(2) (for comparison)`,
        [
          {
            name: `floor, retrying: until a bare subscriber read every change, median (${range(retryFloor)})`,
            value: retryFloor.median,
            unit: 'ms',
          },
          {
            name: 'floor, retrying: CPU per add, all bare publishers',
            value: spread(retrying.map((r) => r.cpu_us_per_add)).median,
            unit: 'µs',
          },
          {
            name: `seen / floor, retrying, each run over its floor run (${range(retryRatios, 2)}): median`,
            value: retryRatios.median,
            unit: '×',
          },
        ],
      );
      bulk[`${key}_floor_retry_seen_ms`] = retrying.map((r) => Math.round(r.seen_ms));
      bulk[`${key}_ratio_retry`] = runs.map(
        (r, i) => Math.round((r.seen_ms / (retrying[i]?.seen_ms ?? NaN)) * 100) / 100,
      );
    }
    bulk[`${key}_seen_ms`] = runs.map((r) => Math.round(r.seen_ms));
    bulk[`${key}_published_ms`] = runs.map((r) => Math.round(r.published_ms));
    const tenths = (x: number): number => Math.round(x * 10) / 10;
    bulk[`${key}_subscriber_cpu_us_per_change`] = runs.map((r) => tenths(r.subscriber_cpu_us_per_change));
    bulk[`${key}_publisher_cpu_us_per_add`] = runs.map((r) => tenths(r.publisher_cpu_us_per_add));
    bulk[`${key}_publisher_main_cpu_us_per_add`] = runs.map((r) => tenths(r.publisher_main_cpu_us_per_add));
    bulk[`${key}_floor_cpu_us_per_add`] = floors.map((r) => tenths(r.cpu_us_per_add));
    bulk[`${key}_floor_main_cpu_us_per_add`] = floors.map((r) => tenths(r.main_cpu_us_per_add));
    bulk[`${key}_floor_ms`] = floors.map((r) => Math.round(r.published_ms));
    bulk[`${key}_floor_seen_ms`] = floors.map((r) => Math.round(r.seen_ms));
    bulk[`${key}_floor_subscriber_cpu_us_per_change`] = floors.map((r) => tenths(r.subscriber_cpu_us_per_change));
    bulk[`${key}_ratio`] = runs.map((r, i) => Math.round((r.seen_ms / (floors[i]?.seen_ms ?? NaN)) * 100) / 100);
  }
  return bulk;
}

async function runLocalMemory(): Promise<Record<string, unknown>> {
  const { benchLocalMemory, benchLocalMemoryFloor, benchLocalMemoryGrowth } = await import('./local/bulk.js');
  const memoryRuns: Array<Awaited<ReturnType<typeof benchLocalMemory>>> = [];
  const floorRuns: Array<Awaited<ReturnType<typeof benchLocalMemoryFloor>>> = [];
  const growthRuns: Array<Awaited<ReturnType<typeof benchLocalMemoryGrowth>>> = [];
  const workers = workersArg ?? 10_000;
  const count = workers.toLocaleString('en-US');
  for (let i = 0; i < runsArg; i += 1) {
    memoryRuns.push(await benchLocalMemory({ workers }));
    floorRuns.push(await benchLocalMemoryFloor({ workers }));
    growthRuns.push(await benchLocalMemoryGrowth({ workers }));
  }
  const rss = spread(memoryRuns.map((r) => r.rss_mb));
  const before = spread(memoryRuns.map((r) => r.before_rss_mb));
  const heap = spread(memoryRuns.map((r) => r.heap_used_mb));
  const bare = spread(floorRuns.map((r) => r.bare_mb));
  const rxjs = spread(floorRuns.map((r) => r.rxjs_mb));
  const holding = spread(floorRuns.map((r) => r.holding_mb));
  // The workers' own cost: each figure less the baseline (Node with RxJS
  // loaded and nothing else) of the floor run after it.
  const own = memoryRuns.map((r, i) => r.rss_mb - (floorRuns[i]?.rxjs_mb ?? NaN));
  const peerOwn = floorRuns.map((r) => r.holding_mb - r.rxjs_mb);
  const ratios = own.map((mb, i) => Math.round((mb / (peerOwn[i] ?? NaN)) * 100) / 100);
  const ownSpread = spread(own.map((mb) => Math.round(mb * 10) / 10));
  const peerSpread = spread(peerOwn.map((mb) => Math.round(mb * 10) / 10));
  const ratio = spread(ratios);
  // For comparison: live memory, which V8's young-generation sizing does
  // not move (once proposed as the row's figure; see docs/backends/local.md).
  const live = spread(memoryRuns.map((r) => r.live_mb));
  const peerLive = spread(floorRuns.map((r) => r.peer_live_mb));
  const liveRatios = memoryRuns.map(
    (r, i) => Math.round((r.live_mb / (floorRuns[i]?.peer_live_mb ?? NaN)) * 100) / 100,
  );
  const liveRatio = spread(liveRatios);
  // For comparison: a bare reader of the same namespace that holds the same
  // workers as decodeWorker makes them and nothing else (the same-work floor).
  const sameWork = spread(memoryRuns.map((r) => r.same_work_own_mb));
  const sameWorkCodec = spread(memoryRuns.map((r) => r.same_work_codec_mb));
  const sameWorkLive = spread(memoryRuns.map((r) => r.same_work_live_mb));
  const sameWorkRatios = memoryRuns.map((r, i) => Math.round(((own[i] ?? NaN) / r.same_work_own_mb) * 100) / 100);
  const sameWorkPeer = memoryRuns.map((r, i) => Math.round((r.same_work_own_mb / (peerOwn[i] ?? NaN)) * 100) / 100);
  const sameWorkRatio = spread(sameWorkRatios);
  const sameWorkPeerRatio = spread(sameWorkPeer);
  // How much of each own figure is young-generation pages (see LocalMemoryRun.young_mb).
  const young = spread(memoryRuns.map((r) => r.young_mb));
  const peerYoung = spread(floorRuns.map((r) => r.peer_young_mb));
  const sameWorkYoung = spread(memoryRuns.map((r) => r.same_work_young_mb));
  // The proposed figure (docs/backends/local.md): each own figure less its young-generation pages.
  const outside = memoryRuns.map((r, i) => Math.round(((own[i] ?? NaN) - r.young_mb) * 10) / 10);
  const peerOutside = floorRuns.map((r, i) => Math.round(((peerOwn[i] ?? NaN) - r.peer_young_mb) * 10) / 10);
  const outsideRatios = outside.map((mb, i) => Math.round((mb / (peerOutside[i] ?? NaN)) * 100) / 100);
  const outsideRatio = spread(outsideRatios);
  const youngName = (s: { min: number; max: number }): string =>
    `  of which V8's young generation (nearly empty after the GC, sized by the burst), median (min ${s.min}, max ${s.max})`;
  printTable(
    `local: subscriber memory with ${workers} workers registered, after sync and a full GC (plain node, built package; ${runsArg} runs, each followed by a floor run)`,
    [
      { name: `RSS, median (min ${rss.min}, max ${rss.max})`, value: rss.median, unit: 'MB' },
      {
        name: `RSS before subscribing, median (min ${before.min}, max ${before.max})`,
        value: before.median,
        unit: 'MB',
      },
      { name: `V8 heap used, median (min ${heap.min}, max ${heap.max})`, value: heap.median, unit: 'MB' },
      { name: `floor: a bare node process, median (min ${bare.min}, max ${bare.max})`, value: bare.median, unit: 'MB' },
      {
        name: `baseline: the same with rxjs loaded and nothing else, median (min ${rxjs.min}, max ${rxjs.max})`,
        value: rxjs.median,
        unit: 'MB',
      },
      {
        name: `peer: the same holding ${workers} plain worker objects in a Map, median (min ${holding.min}, max ${holding.max})`,
        value: holding.median,
        unit: 'MB',
      },
      { name: 'RSS / peer (medians)', value: rss.median / holding.median, unit: '×' },
      {
        name: `the workers' own memory: RSS − baseline, median (min ${ownSpread.min}, max ${ownSpread.max})`,
        value: ownSpread.median,
        unit: 'MB',
      },
      { name: youngName(young), value: young.median, unit: 'MB' },
      {
        name: `the peer's: peer − baseline, median (min ${peerSpread.min}, max ${peerSpread.max})`,
        value: peerSpread.median,
        unit: 'MB',
      },
      { name: youngName(peerYoung), value: peerYoung.median, unit: 'MB' },
      {
        name: `(RSS − baseline) / (peer − baseline), each run with the floor run after it (${range(ratio, 2)}; target ≤ ${TARGET.memory}): median`,
        value: ratio.median,
        unit: '×',
      },
      {
        name: `outside the young generation: (own − young) / (peer's − young), each run (${range(outsideRatio, 2)}; for comparison): median`,
        value: outsideRatio.median,
        unit: '×',
      },
      {
        name: `live memory (V8 heap used + buffers after a full GC) the workers add, median (min ${live.min}, max ${live.max})`,
        value: live.median,
        unit: 'MB',
      },
      {
        name: `the peer's, median (min ${peerLive.min}, max ${peerLive.max})`,
        value: peerLive.median,
        unit: 'MB',
      },
      {
        name: `live / peer's live, each run with the floor run after it (${range(liveRatio, 2)}): median`,
        value: liveRatio.median,
        unit: '×',
      },
      {
        name: `same work, for comparison: a bare reader of the namespace (slot table, each block read, decodeWorker, a Map) − its baseline, median (min ${sameWork.min}, max ${sameWork.max})`,
        value: sameWork.median,
        unit: 'MB',
      },
      {
        name: `  of which loading the codec (woolrx's core entry), before any worker, median (min ${sameWorkCodec.min}, max ${sameWorkCodec.max})`,
        value: sameWorkCodec.median,
        unit: 'MB',
      },
      { name: `  ${youngName(sameWorkYoung)}`, value: sameWorkYoung.median, unit: 'MB' },
      {
        name: `  its live memory, median (min ${sameWorkLive.min}, max ${sameWorkLive.max})`,
        value: sameWorkLive.median,
        unit: 'MB',
      },
      {
        name: `  same work / peer (${range(sameWorkPeerRatio, 2)}): median`,
        value: sameWorkPeerRatio.median,
        unit: '×',
      },
      {
        name: `(RSS − baseline) / same work's, each run (${range(sameWorkRatio, 2)}): median`,
        value: sameWorkRatio.median,
        unit: '×',
      },
    ],
  );
  floorRows.push({
    row: `workers' own memory, ${count} workers (RSS − baseline)`,
    unit: 'MB',
    value: ownSpread,
    floor: peerSpread,
    floorName: 'plain-objects peer − baseline',
    ratio,
    target: TARGET.memory,
  });
  floorRows.push({
    row: `workers' own memory, ${count} workers, against a reader doing the same work (RSS − baseline)`,
    unit: 'MB',
    value: ownSpread,
    floor: sameWork,
    floorName: 'the same reads and decodeWorker, a Map − baseline',
    ratio: sameWorkRatio,
  });
  floorRows.push({
    row: `workers' own memory, ${count} workers, outside the young generation`,
    unit: 'MB',
    value: spread(outside),
    floor: spread(peerOutside),
    floorName: "plain-objects peer's, outside its young generation",
    ratio: outsideRatio,
  });
  floorRows.push({
    row: `workers' live memory, ${count} workers (heap used + buffers)`,
    unit: 'MB',
    value: live,
    floor: peerLive,
    floorName: "plain-objects peer's live memory",
    ratio: liveRatio,
  });
  // The proposed figure (docs/backends/local.md): what the second half of the
  // workers adds once the code is warm — what a process pays once (code, the
  // compilers' working memory) and V8's sizing of its young generation for a
  // burst left out, on any Node.js version — as live memory, with the RSS
  // outside the young generation beside it.
  const step = (growthRuns[0]?.step ?? 0).toLocaleString('en-US');
  const grownOwn = spread(growthRuns.map((r) => r.own_mb));
  const grownPeer = spread(growthRuns.map((r) => r.peer_own_mb));
  const grownRatios = growthRuns.map((r) => Math.round((r.own_mb / r.peer_own_mb) * 100) / 100);
  const grownRatio = spread(grownRatios);
  const grownLiveRatios = growthRuns.map((r) => Math.round((r.live_mb / r.peer_live_mb) * 100) / 100);
  const grownLiveRatio = spread(grownLiveRatios);
  const grownLive = spread(growthRuns.map((r) => r.live_mb));
  const grownPeerLive = spread(growthRuns.map((r) => r.peer_live_mb));
  const grownYoung = spread(growthRuns.map((r) => r.young_mb));
  const grownPeerYoung = spread(growthRuns.map((r) => r.peer_young_mb));
  printTable(
    `local: what ${step} more workers cost a warm subscriber (a namespace of ${step} grown to ${count}; plain node, built package; ${runsArg} runs, each with a peer run)`,
    [
      {
        name: `RSS outside the young generation, the second ${step} workers, median (min ${grownOwn.min}, max ${grownOwn.max})`,
        value: grownOwn.median,
        unit: 'MB',
      },
      {
        name: `  live memory, median (min ${grownLive.min}, max ${grownLive.max})`,
        value: grownLive.median,
        unit: 'MB',
      },
      {
        name: `  young generation's pages besides, median (min ${grownYoung.min}, max ${grownYoung.max})`,
        value: grownYoung.median,
        unit: 'MB',
      },
      {
        name: `the plain-objects peer's, median (min ${grownPeer.min}, max ${grownPeer.max})`,
        value: grownPeer.median,
        unit: 'MB',
      },
      {
        name: `  live memory, median (min ${grownPeerLive.min}, max ${grownPeerLive.max})`,
        value: grownPeerLive.median,
        unit: 'MB',
      },
      {
        name: `  young generation's pages besides, median (min ${grownPeerYoung.min}, max ${grownPeerYoung.max})`,
        value: grownPeerYoung.median,
        unit: 'MB',
      },
      {
        name: `subscriber / peer, each run (${range(grownRatio, 2)}): median`,
        value: grownRatio.median,
        unit: '×',
      },
      {
        name: `  live memory: subscriber / peer, each run (${range(grownLiveRatio, 2)}; proposed ≤ ${PROPOSED_TARGET.memoryGrowth}): median`,
        value: grownLiveRatio.median,
        unit: '×',
      },
    ],
  );
  // The target is proposed on live memory: a step of about 2 MB of RSS moves
  // by a page table's worth of malloc and V8 pages from run to run.
  floorRows.push({
    row: `workers' live memory, ${step} more workers, warm (heap used + buffers; proposed)`,
    unit: 'MB',
    value: grownLive,
    floor: grownPeerLive,
    floorName: "plain-objects peer's, the same",
    ratio: grownLiveRatio,
    target: PROPOSED_TARGET.memoryGrowth,
  });
  floorRows.push({
    row: `workers' own memory, ${step} more workers, warm, outside the young generation`,
    unit: 'MB',
    value: grownOwn,
    floor: grownPeer,
    floorName: "plain-objects peer's, the same",
    ratio: grownRatio,
  });
  return {
    memory_workers: workers,
    growth_step: growthRuns[0]?.step,
    growth_own_mb: growthRuns.map((r) => r.own_mb),
    growth_live_mb: growthRuns.map((r) => r.live_mb),
    growth_young_mb: growthRuns.map((r) => r.young_mb),
    peer_growth_own_mb: growthRuns.map((r) => r.peer_own_mb),
    peer_growth_live_mb: growthRuns.map((r) => r.peer_live_mb),
    peer_growth_young_mb: growthRuns.map((r) => r.peer_young_mb),
    growth_ratio: grownRatios,
    growth_live_ratio: grownLiveRatios,
    subscriber_rss_mb: memoryRuns.map((r) => r.rss_mb),
    subscriber_rss_before_mb: memoryRuns.map((r) => r.before_rss_mb),
    floor_rxjs_mb: floorRuns.map((r) => r.rxjs_mb),
    peer_holding_mb: floorRuns.map((r) => r.holding_mb),
    baseline_mb: floorRuns.map((r) => r.rxjs_mb),
    workers_own_mb: own.map((mb) => Math.round(mb * 10) / 10),
    peer_own_mb: peerOwn.map((mb) => Math.round(mb * 10) / 10),
    memory_ratio: ratios,
    workers_live_mb: memoryRuns.map((r) => r.live_mb),
    peer_live_mb: floorRuns.map((r) => r.peer_live_mb),
    same_work_own_mb: memoryRuns.map((r) => r.same_work_own_mb),
    same_work_codec_mb: memoryRuns.map((r) => r.same_work_codec_mb),
    same_work_live_mb: memoryRuns.map((r) => r.same_work_live_mb),
    workers_young_mb: memoryRuns.map((r) => r.young_mb),
    peer_young_mb: floorRuns.map((r) => r.peer_young_mb),
    same_work_young_mb: memoryRuns.map((r) => r.same_work_young_mb),
    outside_young_mb: outside,
    peer_outside_young_mb: peerOutside,
    outside_young_ratio: outsideRatios,
    same_work_peer_ratio: sameWorkPeer,
    same_work_ratio: sameWorkRatios,
    live_ratio: liveRatios,
  };
}

function spread(values: readonly number[]): { min: number; median: number; max: number } {
  const sorted = [...values].sort((x, y) => x - y);
  return {
    min: sorted[0] ?? NaN,
    median: sorted[Math.floor((sorted.length - 1) / 2)] ?? NaN,
    max: sorted.at(-1) ?? NaN,
  };
}

function spreadText(values: readonly number[], digits = 0): string {
  const { min, median, max } = spread(values);
  return `min ${min.toFixed(digits)} / median ${median.toFixed(digits)} / max ${max.toFixed(digits)}`;
}

async function runLan(): Promise<Record<string, unknown>> {
  // Runs inside two network namespaces it creates (root only): mDNS never
  // touches the host's interfaces.
  const rows = new Set(values['lan-rows'].split(','));
  let last: Record<string, unknown> = {};
  let signing: Row[] = [];
  if (rows.has('signing')) {
    const { benchLanSigning } = await import('./lan/signing.js');
    signing = benchLanSigning();
    printTable('lan: cost per announcement of signed records (signingKey: HMAC-SHA-256), in process', signing);
  }
  if (rows.has('add')) {
    const { benchLan } = await import('./lan/bench.js');
    const workers = workersArg ?? 200;
    for (const probe of [true, false]) {
      const result = await benchLan({ workers, probe });
      printTable(`lan: add → event, ${workers} workers, two network namespaces, probing ${probe ? 'on' : 'off'}`, [
        { name: 'p50', value: result.p50_ms, unit: 'ms' },
        { name: 'p99', value: result.p99_ms, unit: 'ms' },
      ]);
      last = { ...result };
    }
  }
  if (rows.has('late')) {
    const { benchLanLateJoiner } = await import('./lan/lateJoiner.js');
    for (const workers of workersArg === undefined ? [1_000, 5_000] : [workersArg]) {
      const result = await benchLanLateJoiner({ workers, runs: runsArg });
      const of = (
        key: 'first_ms' | 'all_ms' | 'synced_ms' | 'seen_at_synced' | 'rx_packets' | 'rx_bytes' | 'udp_rcvbuf_errors',
      ): number[] => result.runs.map((run) => run[key]);
      const median = (numbers: readonly number[]): number => spread(numbers).median;
      printTable(
        `lan: late joiner, 1 publisher holding ${workers} workers (probe off), a new subscriber in another namespace (${result.runs.length} runs: median; min/median/max in the names)`,
        [
          {
            name: `subscribe → first worker seen (${spreadText(of('first_ms'))})`,
            value: median(of('first_ms')),
            unit: 'ms',
          },
          {
            name: `subscribe → all ${workers} workers seen (${spreadText(of('all_ms'))})`,
            value: median(of('all_ms')),
            unit: 'ms',
          },
          {
            name: `subscribe → synced, default syncWindow (${spreadText(of('synced_ms'))})`,
            value: median(of('synced_ms')),
            unit: 'ms',
          },
          {
            name: `workers in the synced state (${spreadText(of('seen_at_synced'))})`,
            value: median(of('seen_at_synced')),
            unit: 'workers',
          },
          {
            name: `packets received by the joiner (${spreadText(of('rx_packets'))})`,
            value: median(of('rx_packets')),
            unit: 'packets',
          },
          {
            name: `bytes received by the joiner (${spreadText(of('rx_bytes'))})`,
            value: median(of('rx_bytes')),
            unit: 'bytes',
          },
          {
            name: `UDP receive-buffer drops (${spreadText(of('udp_rcvbuf_errors'))})`,
            value: median(of('udp_rcvbuf_errors')),
            unit: 'packets',
          },
          {
            name: `floor: as many datagrams of that size over plain UDP (${result.floor_ms.length} runs without loss: ${spreadText(result.floor_ms, 1)})`,
            value: median(result.floor_ms),
            unit: 'ms',
          },
        ],
      );
      last = {
        suite: 'lan',
        late_joiner_workers: workers,
        late_joiner_all_ms: median(of('all_ms')),
        late_joiner_synced_ms: median(of('synced_ms')),
        late_joiner_runs: result.runs,
        floor_ms: result.floor_ms,
      };
    }
  }
  for (const row of signing) last[`${row.name} (${row.unit})`] = Number(row.value.toPrecision(3));
  return last;
}

async function runEtcd(): Promise<Record<string, unknown>> {
  const { benchEtcd } = await import('./etcd/bench.js');
  // 100,000 by default: issue #24's initial-sync row (sync ÷ raw read ≤ 1.5).
  const workers = workersArg ?? 100_000;
  const result = await benchEtcd({ workers });
  printTable(`etcd: add → event, and initial sync of ${workers} existing workers (own etcd on loopback)`, [
    { name: 'p50', value: result.p50_ms, unit: 'ms' },
    { name: 'p99', value: result.p99_ms, unit: 'ms' },
    { name: `sync of ${workers} workers (runs: ${result.sync_runs_ms.join(', ')})`, value: result.sync_ms, unit: 'ms' },
    {
      name: `floor: raw etcd3 prefix read of the same keys (runs: ${result.raw_runs_ms.join(', ')})`,
      value: result.raw_ms,
      unit: 'ms',
    },
    { name: 'sync / raw read (medians)', value: result.sync_raw_ratio, unit: '×' },
    {
      name: `sync / raw read, each run (${result.sync_raw_ratio_runs.join(', ')}): the largest`,
      value: Math.max(...result.sync_raw_ratio_runs),
      unit: '×',
    },
  ]);
  return { ...result };
}

async function runRelay(): Promise<Record<string, unknown>> {
  const { benchRelay } = await import('./relay/bench.js');
  const workers = workersArg ?? 10_000;
  const r = await benchRelay({ workers });
  printTable(`relay: local → etcd (own etcd on loopback), each figure with its floor from the same run`, [
    { name: 'floor: local add → local event, p50', value: r.local_p50_ms, unit: 'ms' },
    { name: 'floor: etcd add → etcd event, p50', value: r.etcd_p50_ms, unit: 'ms' },
    { name: 'relayed: local add → etcd event, p50', value: r.relayed_p50_ms, unit: 'ms' },
    { name: 'relayed: local add → etcd event, p99', value: r.relayed_p99_ms, unit: 'ms' },
    { name: 'relayed p50 − (local p50 + etcd p50) (target ≤ 1)', value: r.relayed_excess_ms, unit: 'ms' },
    {
      name: `initial relay of ${workers} local workers into etcd (runs: ${r.initial_relay_runs_ms.join(', ')})`,
      value: r.initial_relay_ms,
      unit: 'ms',
    },
    {
      name: `floor: the etcd backend's own publish of ${workers} (runs: ${r.etcd_publish_runs_ms.join(', ')})`,
      value: r.etcd_publish_ms,
      unit: 'ms',
    },
    { name: 'initial relay / own publish (target ≤ 1.5)', value: r.initial_ratio, unit: '×' },
  ]);
  return { ...r };
}

async function runFlock(): Promise<Record<string, unknown>> {
  const { benchFlock } = await import('./flock/bench.js');
  const rows = benchFlock();
  printTable(
    "flock(2): the calls woolrx/local makes, woolrx's Node-API addon vs the NAN addon it replaced (same process, interleaved rounds, median)",
    rows,
  );
  const result: Record<string, unknown> = { suite: 'flock' };
  for (const row of rows) result[`${row.name} (${row.unit})`] = Number(row.value.toPrecision(4));
  return result;
}

const runners: Record<Suite, () => Promise<Record<string, unknown>>> = {
  core: runCore,
  flock: runFlock,
  local: runLocal,
  lan: runLan,
  etcd: runEtcd,
  relay: runRelay,
};

const cpu = cpus()[0]?.model ?? 'unknown CPU';
process.stdout.write(
  `woolrx bench on ${cpus().length} × ${cpu}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, node ${process.version}\n`,
);
const startedAt = new Date();
const failed: Array<{ suite: string; reason: string }> = [];
const latency: LatencyPoint[] = [];
let last: Record<string, unknown> = {};
for (const suite of suites) {
  currentSuite = suite;
  if (!report) {
    last = await runners[suite]();
    continue;
  }
  try {
    last = await runners[suite]();
    if (suite === 'local') {
      const { benchLocal } = await import('./local/bench.js');
      for (const workers of LATENCY_SWEEP) {
        const result = await benchLocal({ workers, runs: runsArg });
        process.stdout.write(
          `  local sweep: ${workers} workers: p50 ${result.p50_us.toFixed(0)} µs, p99 ${result.p99_us.toFixed(0)} µs\n`,
        );
        latency.push({ workers, p50_us: result.p50_us, p99_us: result.p99_us });
      }
    }
  } catch (err: unknown) {
    const reason = err instanceof Error ? err.message : String(err);
    process.stderr.write(`suite ${suite} failed: ${reason}\n`);
    failed.push({ suite, reason });
  }
}
if (report) {
  const root = join(dirname(fileURLToPath(import.meta.url)), '..');
  const command = `npm run bench -- ${process.argv.slice(2).join(' ')}`.trim();
  const written = await writeReport(root, {
    machine: machineInfo(startedAt),
    tables,
    latency,
    floors: floorRows,
    failed,
    command,
  });
  for (const path of written) process.stdout.write(`wrote ${path}\n`);
}
if (values.json) process.stdout.write(`${JSON.stringify(last)}\n`);
