/**
 * Benchmark runner: `npm run bench -- [--suite core|local|lan|etcd|flock|all, or a comma list] [--workers N] [--runs R] [--json] [--report]`.
 *
 * `--runs R` (local suite; default 3): repeat the measurement R times and
 * report the median of each figure.
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
import { LATENCY_SWEEP, machineInfo, writeReport, type LatencyPoint, type ReportTable } from './report.js';

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
  },
  allowPositionals: false,
});

// `npm run bench` with no --suite runs everything and writes the report;
// a chosen suite only prints, unless --report is given.
const report = values.report ?? values.suite === 'all';

const SUITES = ['core', 'local', 'lan', 'etcd', 'flock'] as const;
type Suite = (typeof SUITES)[number];

function usage(message: string): never {
  process.stderr.write(`${message}\nusage: npm run bench -- [--suite ${SUITES.join('|')}|all] [--workers N] [--runs R] [--json] [--report]\n`);
  process.exit(2);
}

// `--suite` takes one suite, a comma-separated list, or `all`.
const suites: readonly Suite[] =
  values.suite === 'all'
    ? SUITES
    : values.suite.split(',').map((name) =>
        (SUITES as readonly string[]).includes(name) ? (name as Suite) : usage(`unknown suite: ${name}`),
      );
const workersArg = values.workers === undefined ? undefined : Number(values.workers);
if (workersArg !== undefined && !(Number.isSafeInteger(workersArg) && workersArg > 0)) {
  usage(`--workers must be a positive integer, got ${values.workers}`);
}

const runsArg = values.runs === undefined ? 3 : Number(values.runs);
if (!(Number.isSafeInteger(runsArg) && runsArg > 0)) usage(`--runs must be a positive integer, got ${values.runs}`);

const tables: ReportTable[] = [];
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
  for (const row of [...diff, ...operators, ...codec]) result[`${row.name} (${row.unit})`] = Number(row.value.toPrecision(4));
  return result;
}

async function runLocal(): Promise<Record<string, unknown>> {
  const { benchLocal } = await import('./local/bench.js');
  const workers = workersArg ?? 1_000;
  const result = await benchLocal({ workers, runs: runsArg });
  const each = (key: 'p50_us' | 'p99_us' | 'subscriber_gcs' | 'publisher_gcs'): string => result.runs.map((r) => r[key]).join(', ');
  printTable(
    `local: add → event, ${workers} workers, publisher and subscriber in separate processes (median of ${result.runs.length} runs)`,
    [
      { name: `p50 (runs: ${each('p50_us')})`, value: result.p50_us, unit: 'µs' },
      { name: `p99 (runs: ${each('p99_us')})`, value: result.p99_us, unit: 'µs' },
      { name: 'subscriber CPU per event', value: result.cpu_us_per_event, unit: 'µs' },
      { name: `p50 of all runs' latencies pooled`, value: result.pooled_p50_us, unit: 'µs' },
      { name: `p99 of all runs' latencies pooled`, value: result.pooled_p99_us, unit: 'µs' },
      { name: `GCs in the timed phase, subscriber (runs: ${each('subscriber_gcs')})`, value: result.subscriber_gcs, unit: 'per run' },
      { name: `GCs in the timed phase, publisher (runs: ${each('publisher_gcs')})`, value: result.publisher_gcs, unit: 'per run' },
      { name: 'floor p50 (pwrite in /dev/shm → fs.watch in another process)', value: result.floor_p50_us, unit: 'µs' },
      { name: 'floor p99', value: result.floor_p99_us, unit: 'µs' },
      { name: 'host stalls > 1 ms (busy loop, before the runs)', value: result.host_stalls_per_s, unit: 'per s' },
      { name: 'longest host stall', value: result.host_max_stall_us, unit: 'µs' },
    ],
  );
  return { ...result };
}

async function runLan(): Promise<Record<string, unknown>> {
  // Runs inside two network namespaces it creates (root only): mDNS never
  // touches the host's interfaces.
  const { benchLan } = await import('./lan/bench.js');
  const { benchLanSigning } = await import('./lan/signing.js');
  const signing = benchLanSigning();
  printTable('lan: cost per announcement of signed records (signingKey: HMAC-SHA-256), in process', signing);
  const workers = workersArg ?? 200;
  let last: Record<string, unknown> = {};
  for (const probe of [true, false]) {
    const result = await benchLan({ workers, probe });
    printTable(`lan: add → event, ${workers} workers, two network namespaces, probing ${probe ? 'on' : 'off'}`, [
      { name: 'p50', value: result.p50_ms, unit: 'ms' },
      { name: 'p99', value: result.p99_ms, unit: 'ms' },
    ]);
    last = { ...result };
  }
  for (const row of signing) last[`${row.name} (${row.unit})`] = Number(row.value.toPrecision(3));
  return last;
}

async function runEtcd(): Promise<Record<string, unknown>> {
  const { benchEtcd } = await import('./etcd/bench.js');
  const workers = workersArg ?? 10_000;
  const result = await benchEtcd({ workers });
  printTable(`etcd: add → event, and initial sync of ${workers} existing workers (own etcd on loopback)`, [
    { name: 'p50', value: result.p50_ms, unit: 'ms' },
    { name: 'p99', value: result.p99_ms, unit: 'ms' },
    { name: `sync of ${workers} workers (runs: ${result.sync_runs_ms.join(', ')})`, value: result.sync_ms, unit: 'ms' },
    { name: `floor: raw etcd3 prefix read of the same keys (runs: ${result.raw_runs_ms.join(', ')})`, value: result.raw_ms, unit: 'ms' },
    { name: 'sync / raw read (medians)', value: result.sync_raw_ratio, unit: '×' },
  ]);
  return { ...result };
}

async function runFlock(): Promise<Record<string, unknown>> {
  const { benchFlock } = await import('./flock/bench.js');
  const rows = benchFlock();
  printTable('flock(2): the calls woolrx/local makes, woolrx\'s Node-API addon vs the NAN addon it replaced (same process, interleaved rounds, median)', rows);
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
};

const cpu = cpus()[0]?.model ?? 'unknown CPU';
process.stdout.write(`woolrx bench on ${cpus().length} × ${cpu}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, node ${process.version}\n`);
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
        process.stdout.write(`  local sweep: ${workers} workers: p50 ${result.p50_us.toFixed(0)} µs, p99 ${result.p99_us.toFixed(0)} µs\n`);
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
  const written = await writeReport(root, { machine: machineInfo(startedAt), tables, latency, failed, command });
  for (const path of written) process.stdout.write(`wrote ${path}\n`);
}
if (values.json) process.stdout.write(`${JSON.stringify(last)}\n`);
