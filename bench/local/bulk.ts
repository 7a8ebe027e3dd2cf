/**
 * Local backend benchmarks of throughput and memory (issue #24):
 *
 * - {@link benchLocalBulk}: `publishers` processes each publish
 *   `perPublisher` workers one after another, every publish awaited before
 *   the next, into one fresh namespace, while a subscriber in another
 *   process watches; the figure is the time from the start signal to the
 *   subscriber's `worker-added` of the last worker (CLOCK_MONOTONIC on both
 *   sides), and the time until the last publish resolved. Each publisher
 *   first publishes and withdraws 200 workers, untimed, as each bare
 *   publisher of the floor makes 200 untimed adds: both timed phases start
 *   with the namespace made, the addon loaded and the code run before (the
 *   warm 10 × 1,000 row: 2,000 each, row and floor).
 * - {@link benchLocalMemory}: a subscriber process (plain Node.js, the built
 *   package) subscribing to a namespace where `workers` workers are
 *   registered: its RSS once synced, after a full GC, and before
 *   subscribing.
 *
 * Each has its floor, measured in the same run: {@link benchLocalBulkFloor}
 * (the same adds' system calls, bare, and a bare subscriber's reads of every
 * change) and {@link benchLocalMemoryFloor} (a plain Node.js process: with
 * RxJS loaded and nothing else, the baseline; then holding the same workers
 * as plain objects, the peer).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bareNamespace } from './bareNamespace.js';
import { removeBenchNamespace } from './removeBenchNamespace.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, '..', '..');

/** Result of one {@link benchLocalBulk} run. */
export interface LocalBulkRun {
  /** Start signal → the subscriber's event of the last worker, ms. */
  seen_ms: number;
  /** Start signal → the last publish resolved (the slowest publisher), ms. */
  published_ms: number;
  /** CPU the subscriber used from the start signal to its last event, per change, µs. */
  subscriber_cpu_us_per_change: number;
  /** CPU all publishers used in their timed phase, every thread, per add, µs. */
  publisher_cpu_us_per_add: number;
  /**
   * The same, their main threads only, µs: the rest is V8's compiler and
   * garbage-collector threads (woolrx's code is compiled while it runs).
   */
  publisher_main_cpu_us_per_add: number;
}

/** Result of one {@link benchLocalMemory} run. */
export interface LocalMemoryRun {
  /** RSS once the subscription is synced, after a full GC, MB (10^6 bytes). */
  rss_mb: number;
  /** RSS before subscribing (module loaded), MB. */
  before_rss_mb: number;
  /** V8 heap in use once synced, MB. */
  heap_used_mb: number;
  /** Live memory (V8 heap used plus buffers, after a full GC) once synced, less the same before subscribing, MB. */
  live_mb: number;
  /**
   * The pages of V8's young generation once synced, less the same before
   * subscribing, MB: part of `rss_mb`, though a full GC left them nearly
   * empty (V8 sizes the young generation by how much a burst allocates and
   * keeps, and gives the pages back only after the process idles).
   */
  young_mb: number;
  /**
   * The same-work floor (bench/local/memorySameWorkProcess.mjs), run on the
   * same namespace right after: its RSS holding the workers, less its own
   * baseline (Node.js with RxJS loaded), MB.
   */
  same_work_own_mb: number;
  /** Of that, what loading the codec (woolrx's core entry) added before any worker was read, MB. */
  same_work_codec_mb: number;
  /** Its live memory holding the workers, less its baseline's, MB. */
  same_work_live_mb: number;
  /** Its young generation's pages holding the workers, less its baseline's, MB (see `young_mb`). */
  same_work_young_mb: number;
}

function child(
  script: string,
  args: string[],
  execArgv: string[],
): { child: ChildProcess; next: (key: string) => Promise<Record<string, unknown>> } {
  const proc = fork(join(HERE, script), args, { execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const inbox: Record<string, unknown>[] = [];
  const waiting: { key: string; resolve: (m: Record<string, unknown>) => void }[] = [];
  proc.on('message', (message: Record<string, unknown>) => {
    const index = waiting.findIndex((w) => w.key in message);
    if (index >= 0) waiting.splice(index, 1)[0]?.resolve(message);
    else inbox.push(message);
  });
  // A message sent to a child that died: its exit rejects what is awaited of it (below).
  proc.on('error', () => undefined);
  const next = (key: string): Promise<Record<string, unknown>> =>
    new Promise((resolve, reject) => {
      const index = inbox.findIndex((m) => key in m);
      if (index >= 0) return resolve(inbox.splice(index, 1)[0] ?? {});
      const gone = (): void => reject(new Error(`${script} exited (${proc.exitCode}) before sending ${key}`));
      if (proc.exitCode !== null || proc.signalCode !== null) return gone();
      proc.once('exit', gone);
      waiting.push({ key, resolve });
    });
  return { child: proc, next };
}

const TSX = [
  '--import',
  'tsx',
  '--expose-gc',
  ...(process.env['WOOLRX_BENCH_PROF'] === 'bulk' ? ['--cpu-prof', '--cpu-prof-dir=bench-profiles'] : []),
];

/**
 * Untimed adds each publisher makes first, unless told otherwise: a bare
 * one (bareProcess.ts); a woolrx one publishes and withdraws them.
 */
export const WARMUP_ADDS = 200;

/**
 * The untimed adds of the warm 10 × 1,000 row (the restatement proposed in
 * docs/backends/local.md): a lone woolrx publisher's V8 still compiles its
 * publish path for a few thousand adds, and ten fresh ones time it while
 * compiling.
 */
export const WARM_ADDS = 2_000;

function exited(proc: ChildProcess): Promise<unknown> {
  return new Promise((resolve) =>
    proc.exitCode !== null || proc.signalCode !== null ? resolve(null) : proc.once('exit', resolve),
  );
}

/**
 * One bulk-publish measurement (fresh processes, fresh namespace of capacity `publishers × perPublisher`).
 * @param opts `publishers`: publisher processes; `perPublisher`: workers each publishes; `warmup`:
 * workers each publishes and withdraws first, untimed (default {@link WARMUP_ADDS}; no more than
 * `perPublisher` registered at a time).
 * @returns The times.
 */
export async function benchLocalBulk(opts: {
  publishers: number;
  perPublisher: number;
  warmup?: number;
}): Promise<LocalBulkRun> {
  const namespace = `woolrx-bench-bulk-${process.pid}-${randomUUID().slice(0, 8)}`;
  const total = opts.publishers * opts.perPublisher;
  // Each publisher first publishes and withdraws as many workers as a bare
  // one makes untimed adds; the subscriber starts once they are done (it
  // need not see them).
  const warmup = String(opts.warmup ?? WARMUP_ADDS);
  const publishers = Array.from({ length: opts.publishers }, () =>
    child('bulkPublisherProcess.ts', [namespace, String(opts.perPublisher), String(total), warmup], TSX),
  );
  let subscriber: ReturnType<typeof child> | undefined;
  let measured = false;
  try {
    await Promise.all(publishers.map((p) => p.next('ready')));
    subscriber = child('subscriberProcess.ts', [namespace, String(total), '0'], TSX);
    await subscriber.next('ready');
    subscriber.child.send({ op: 'start' });
    await subscriber.next('started');
    const start = process.hrtime.bigint();
    for (const p of publishers) p.child.send({ op: 'run' });
    const done = await Promise.all(publishers.map((p) => p.next('published')));
    const published = done.map((m) => BigInt(m['published'] as string));
    await subscriber.next('done');
    subscriber.child.send({ op: 'report' });
    const { arrivals, cpuUs } = (await subscriber.next('arrivals')) as {
      arrivals: [string, string][];
      cpuUs: number;
    };
    if (arrivals.length !== total) throw new Error(`the subscriber saw ${arrivals.length} of ${total} workers`);
    const last = arrivals.reduce((max, [, t]) => (BigInt(t) > max ? BigInt(t) : max), 0n);
    const lastPublished = published.reduce((max, t) => (t > max ? t : max), 0n);
    measured = true;
    return {
      seen_ms: Number(last - start) / 1e6,
      published_ms: Number(lastPublished - start) / 1e6,
      subscriber_cpu_us_per_change: cpuUs / total,
      publisher_cpu_us_per_add: done.reduce((sum, m) => sum + (m['cpu_us'] as number), 0) / total,
      publisher_main_cpu_us_per_add: done.reduce((sum, m) => sum + (m['main_us'] as number), 0) / total,
    };
  } finally {
    const children = [...publishers.map((p) => p.child), ...(subscriber === undefined ? [] : [subscriber.child])];
    if (measured) {
      // The subscriber leaves first: it need not watch the withdrawals.
      if (subscriber !== undefined) {
        subscriber.child.send({ op: 'stop' });
        await exited(subscriber.child);
      }
      for (const p of publishers) p.child.send({ op: 'stop' });
      await Promise.all(publishers.map((p) => p.next('stopped').catch(() => undefined)));
      await Promise.all(children.map(exited));
    } else {
      // Failed: a child may wait for what will not come, or have died
      // holding workers; what the namespace holds is removed once all are gone.
      for (const c of children) c.kill();
      await Promise.all(children.map(exited));
      removeBenchNamespace(namespace);
    }
  }
}

/** Result of one {@link benchLocalBulkFloor} run. */
export interface LocalBulkFloorRun {
  /** Start signal → the bare subscriber has read the last change, ms: the floor under {@link LocalBulkRun.seen_ms}. */
  seen_ms: number;
  /** Start signal → the last bare add done (the slowest publisher), ms. */
  published_ms: number;
  /** CPU all bare publishers used, per add, µs. */
  cpu_us_per_add: number;
  /** The same, their main threads only, µs. */
  main_cpu_us_per_add: number;
  /** CPU the bare subscriber used, per change, µs. */
  subscriber_cpu_us_per_change: number;
  /**
   * Times the bare subscriber fell more than the journal's ring behind (then it read the slot table
   * and the blocks).
   */
  overruns: number;
}

/**
 * The floor under {@link benchLocalBulk}: `publishers` processes each make
 * `perPublisher` adds' worth of the system calls a woolrx add makes, bare
 * (bench/local/bareProcess.ts), on files of the same kinds — one woolrx lock,
 * segment and journal in /dev/shm, wool's lock and the notification file in
 * the temp directory, one new 1 KiB block per add — taking, keeping and
 * releasing the lock as woolrx does (kept across a burst for up to 1 ms,
 * released after each add while another publisher says it waits, left free
 * 2 ms after 20 ms in a row), and waiting for a busy lock in the kernel;
 * and a bare subscriber (bench/local/bareSubscriberProcess.ts) reads every
 * change as a woolrx subscriber does (per wake-up: the journal head, the
 * new records, the head again, their slots; more than the ring behind: the
 * slot table and the blocks not seen). The floor is the start signal → the
 * bare subscriber has read the last change, as the row's is the start →
 * the subscriber's last event. With `wait: 'retry'` the bare publishers
 * retry a busy lock as a woolrx publisher must, not blocking its event
 * loop (next turns of the loop, then backoff sleeps), instead of waiting
 * for it in the kernel.
 * @param opts `publishers`: processes; `perPublisher`: adds each; `wait`: how a busy lock is waited for;
 * `warmup`: untimed adds each makes first (default {@link WARMUP_ADDS}).
 * @returns The times, and the CPU used.
 */
export async function benchLocalBulkFloor(opts: {
  publishers: number;
  perPublisher: number;
  /** `kernel` (default): a busy lock is waited for in `flock(2)`; `retry`: retried as a woolrx publisher does. */
  wait?: 'kernel' | 'retry';
  warmup?: number;
}): Promise<LocalBulkFloorRun> {
  const warmup = opts.warmup ?? WARMUP_ADDS;
  const stride = opts.perPublisher + warmup;
  const capacity = opts.publishers * stride;
  const total = opts.publishers * opts.perPublisher;
  const ns = bareNamespace(capacity);
  const publishers = Array.from({ length: opts.publishers }, (_, p) =>
    child(
      'bareProcess.ts',
      [
        ns.dir,
        ns.woolLock,
        ns.notify,
        String(opts.perPublisher),
        String(capacity),
        String(p * stride),
        String(warmup),
        opts.wait === 'retry' ? 'retry' : '',
        String(total),
      ],
      ['--import', 'tsx', '--expose-gc'],
    ),
  );
  let subscriber: ReturnType<typeof child> | undefined;
  let measured = false;
  try {
    await Promise.all(publishers.map((p) => p.next('ready')));
    // Started after the publishers' warm-up: it reads from the journal's head on.
    subscriber = child(
      'bareSubscriberProcess.ts',
      [ns.dir, ns.notify, String(total), '0', String(capacity)],
      ['--import', 'tsx', '--expose-gc'],
    );
    await subscriber.next('ready');
    const start = process.hrtime.bigint();
    for (const p of publishers) p.child.send({ op: 'run' });
    const [done, seen] = await Promise.all([
      Promise.all(publishers.map((p) => p.next('published'))),
      subscriber.next('arrivals'),
    ]);
    const last = done.reduce(
      (max, m) => (BigInt(m['published'] as string) > max ? BigInt(m['published'] as string) : max),
      0n,
    );
    const cpu = done.reduce((sum, m) => sum + (m['cpu_us'] as number), 0);
    const main = done.reduce((sum, m) => sum + (m['main_us'] as number), 0);
    measured = true;
    return {
      seen_ms: Number(BigInt(seen['last'] as string) - start) / 1e6,
      published_ms: Number(last - start) / 1e6,
      cpu_us_per_add: cpu / total,
      main_cpu_us_per_add: main / total,
      subscriber_cpu_us_per_change: (seen['cpuUs'] as number) / total,
      overruns: seen['overruns'] as number,
    };
  } finally {
    const children = [...publishers.map((p) => p.child), ...(subscriber === undefined ? [] : [subscriber.child])];
    // Failed: a child may wait for what will not come.
    if (!measured) for (const c of children) c.kill();
    await Promise.all(children.map(exited));
    ns.remove();
  }
}

/** The built package's local entry, refusing one older than the sources (measure what is in src/). */
function builtEntry(): string {
  const entry = join(ROOT, 'dist', 'local', 'index.js');
  if (!existsSync(entry)) throw new Error(`${entry} is missing: run npm run build first`);
  const built = statSync(entry).mtimeMs;
  const newest = (dir: string): number =>
    Math.max(
      0,
      ...readdirSync(dir, { withFileTypes: true }).map((e) =>
        e.isDirectory() ? newest(join(dir, e.name)) : statSync(join(dir, e.name)).mtimeMs,
      ),
    );
  if (newest(join(ROOT, 'src')) > built) throw new Error(`${entry} is older than src/: run npm run build first`);
  return entry;
}

/**
 * One memory measurement: a publisher process registers `workers` workers
 * (capacity `workers`), then a subscriber process subscribes and reports.
 * @param opts `workers`: how many workers are registered.
 * @returns The subscriber's memory.
 */
export async function benchLocalMemory(opts: { workers: number }): Promise<LocalMemoryRun> {
  const entry = builtEntry();
  const namespace = `woolrx-bench-rss-${process.pid}-${randomUUID().slice(0, 8)}`;
  const publisher = child('bulkPublisherProcess.ts', [namespace, String(opts.workers), String(opts.workers)], TSX);
  try {
    await publisher.next('ready');
    publisher.child.send({ op: 'run' });
    await publisher.next('published');
    const subscriber = child('memoryProcess.mjs', [entry, namespace, String(opts.workers)], ['--expose-gc']);
    const { memory } = (await subscriber.next('memory')) as {
      memory: {
        before_rss: number;
        rss: number;
        heap_used: number;
        before_live: number;
        live: number;
        before_young: number;
        young: number;
      };
    };
    await exited(subscriber.child);
    const coreEntry = join(dirname(entry), '..', 'index.js');
    const floor = child('memorySameWorkProcess.mjs', [coreEntry, namespace, String(opts.workers)], ['--expose-gc']);
    const { sameWork } = (await floor.next('sameWork')) as { sameWork: HoldingMemory & { codec: number } };
    await exited(floor.child);
    if (sameWork.held !== opts.workers) throw new Error(`the same-work floor held ${sameWork.held} of ${opts.workers}`);
    const mb = (bytes: number): number => Math.round(bytes / 1e5) / 10;
    return {
      rss_mb: mb(memory.rss),
      before_rss_mb: mb(memory.before_rss),
      heap_used_mb: mb(memory.heap_used),
      live_mb: mb(memory.live - memory.before_live),
      young_mb: mb(memory.young - memory.before_young),
      same_work_own_mb: mb(sameWork.holding - sameWork.rxjs),
      same_work_codec_mb: mb(sameWork.codec - sameWork.rxjs),
      same_work_live_mb: mb(sameWork.holding_live - sameWork.rxjs_live),
      same_work_young_mb: mb(sameWork.holding_young - sameWork.rxjs_young),
    };
  } finally {
    await stopPublisher(publisher, namespace);
  }
}

/** Stops a memory row's publisher process; the namespace goes with it, or is removed if it died. */
async function stopPublisher(publisher: ReturnType<typeof child>, namespace: string): Promise<void> {
  // A publisher that died cannot be told to stop (sending would throw).
  if (publisher.child.connected) {
    publisher.child.send({ op: 'stop' });
    await publisher.next('stopped').catch(() => undefined);
  } else {
    publisher.child.kill();
  }
  await exited(publisher.child);
  if (publisher.child.exitCode !== 0) removeBenchNamespace(namespace);
}

/** Result of one {@link benchLocalMemoryGrowth} run, MB (10^6 bytes). */
export interface LocalMemoryGrowthRun {
  /** Workers in each step: the namespace holds this many, then twice as many. */
  step: number;
  /**
   * What the second step added to the subscriber's RSS outside V8's young
   * generation (RSS less the young generation's pages, after a full GC, the
   * second step's less the first's): what its warm code keeps for `step`
   * more workers, without what a process pays once (code, the compilers'
   * working memory) or V8's sizing of its young generation for a burst.
   */
  own_mb: number;
  /** Its live memory (V8 heap used plus buffers, after a full GC), the second step's less the first's. */
  live_mb: number;
  /** Its young generation's pages, the second step's less the first's. */
  young_mb: number;
  /** The same figures of the plain-objects peer (memoryFloorProcess.mjs) holding `step` more plain worker objects. */
  peer_own_mb: number;
  peer_live_mb: number;
  peer_young_mb: number;
}

/**
 * What a subscriber keeps per worker once its code is warm: a publisher
 * registers `workers / 2` workers (in a namespace of capacity `workers`, as
 * {@link benchLocalMemory}'s), a subscriber process subscribes and notes its
 * memory, the publisher registers the other half, and the subscriber, told
 * of them, notes it again; then the plain-objects peer does the same with
 * plain worker objects in one process.
 * @param opts `workers`: how many workers are registered in the end.
 * @returns What the second half added, the subscriber's and the peer's.
 */
export async function benchLocalMemoryGrowth(opts: { workers: number }): Promise<LocalMemoryGrowthRun> {
  const step = Math.floor(opts.workers / 2);
  const entry = builtEntry();
  const namespace = `woolrx-bench-grow-${process.pid}-${randomUUID().slice(0, 8)}`;
  const publisher = child('bulkPublisherProcess.ts', [namespace, String(step), String(2 * step)], TSX);
  let subscriber: ReturnType<typeof child> | undefined;
  try {
    await publisher.next('ready');
    publisher.child.send({ op: 'run', from: 0, count: step });
    await publisher.next('published');
    subscriber = child('memoryProcess.mjs', [entry, namespace, String(step), String(step)], ['--expose-gc']);
    const { memory } = (await subscriber.next('memory')) as { memory: { rss: number; live: number; young: number } };
    publisher.child.send({ op: 'run', from: step, count: step });
    await publisher.next('published');
    const { grown } = (await subscriber.next('grown')) as { grown: { rss: number; live: number; young: number } };
    await exited(subscriber.child);
    const peer = child('memoryFloorProcess.mjs', [String(step), String(step)], ['--expose-gc']);
    const { floor } = (await peer.next('floor')) as {
      floor: HoldingMemory & { grown_rss: number; grown_live: number; grown_young: number };
    };
    await exited(peer.child);
    if (floor.held !== 2 * step) throw new Error(`the peer held ${floor.held} of ${2 * step} workers`);
    const mb = (bytes: number): number => Math.round(bytes / 1e5) / 10;
    return {
      step,
      own_mb: mb(grown.rss - grown.young - (memory.rss - memory.young)),
      live_mb: mb(grown.live - memory.live),
      young_mb: mb(grown.young - memory.young),
      peer_own_mb: mb(floor.grown_rss - floor.grown_young - (floor.holding - floor.holding_young)),
      peer_live_mb: mb(floor.grown_live - floor.holding_live),
      peer_young_mb: mb(floor.grown_young - floor.holding_young),
    };
  } finally {
    // A subscriber still waiting for the second half (the run failed before it came) is not waited for.
    if (subscriber !== undefined) {
      subscriber.child.kill();
      await exited(subscriber.child);
    }
    await stopPublisher(publisher, namespace);
  }
}

/**
 * What the memory row's plain-Node.js children (memoryFloorProcess.mjs,
 * memorySameWorkProcess.mjs) report, in bytes: their RSS, live memory and
 * young-generation pages with RxJS loaded (the baseline) and holding the
 * workers, and how many they held.
 */
interface HoldingMemory {
  rxjs: number;
  holding: number;
  rxjs_live: number;
  holding_live: number;
  rxjs_young: number;
  holding_young: number;
  held: number;
}

/** Result of one {@link benchLocalMemoryFloor} run, MB (10^6 bytes) of RSS after a full GC. */
export interface LocalMemoryFloorRun {
  /** A bare Node.js process. */
  bare_mb: number;
  /** The same with RxJS loaded: the least any subscriber process holds. */
  rxjs_mb: number;
  /** The same holding `workers` plain worker objects in a Map. */
  holding_mb: number;
  /** The live memory (V8 heap used plus buffers, after a full GC) of those objects: holding less with RxJS loaded. */
  peer_live_mb: number;
  /** The young generation's pages holding them, less with RxJS loaded (see {@link LocalMemoryRun.young_mb}). */
  peer_young_mb: number;
}

/**
 * The floor and peer under {@link benchLocalMemory}: a plain Node.js process
 * (bench/local/memoryFloorProcess.mjs) with nothing of woolrx — bare, with
 * RxJS loaded, and holding `workers` plain worker objects.
 * @param opts `workers`: how many worker objects to hold.
 * @returns Its RSS at each step.
 */
export async function benchLocalMemoryFloor(opts: { workers: number }): Promise<LocalMemoryFloorRun> {
  const proc = child('memoryFloorProcess.mjs', [String(opts.workers)], ['--expose-gc']);
  const { floor } = (await proc.next('floor')) as { floor: HoldingMemory & { bare: number } };
  await exited(proc.child);
  if (floor.held !== opts.workers) throw new Error(`the floor process held ${floor.held} of ${opts.workers} workers`);
  const mb = (bytes: number): number => Math.round(bytes / 1e5) / 10;
  return {
    bare_mb: mb(floor.bare),
    rxjs_mb: mb(floor.rxjs),
    holding_mb: mb(floor.holding),
    peer_live_mb: mb(floor.holding_live - floor.rxjs_live),
    peer_young_mb: mb(floor.holding_young - floor.rxjs_young),
  };
}
