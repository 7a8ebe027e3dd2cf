import { randomUUID } from 'node:crypto';
import { first, firstValueFrom, map, of, startWith, Subject, takeUntil, timeout, timer, type Subscription } from 'rxjs';
import { aborted } from '../aborted.js';
import type { DiscoveryEvent, DiscoveryEventType } from '../../events/types.js';
import { formatEventJson } from '../formatEventJson.js';
import { applyTableEvent } from '../table/applyTableEvent.js';
import { LiveTable } from '../table/LiveTable.js';
import type { TableState } from '../table/types.js';
import type { CommandContext } from '../types.js';
import { DemoWorkerProcess } from './DemoWorkerProcess.js';
import type { DemoSettings, DemoWorkerSpec } from './types.js';

const TAG_SETS: readonly (readonly string[])[] = [['gpu'], ['cpu'], ['cpu', 'gpu'], ['cpu', 'io']];
const ZONES = ['eu-1', 'us-2', 'ap-3'];
/** Longest wait for one step of the scenario (a worker to appear, or to be seen dead). */
const STEP_TIMEOUT_MS = 20_000;

function specFor(index: number): DemoWorkerSpec {
  return {
    uid: randomUUID(),
    address: `127.0.0.1:${50051 + index}`,
    tags: TAG_SETS[index % TAG_SETS.length] ?? [],
    extra: { zone: ZONES[index % ZONES.length] ?? 'eu-1' },
  };
}

/** Resolves after `ms`, or at once when `signal` aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<unknown> {
  return firstValueFrom(timer(ms).pipe(takeUntil(aborted(signal))), { defaultValue: undefined });
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

/**
 * `woolrx demo`: starts `settings.workers` worker processes on a namespace
 * of the local backend and watches them while it updates two, SIGKILLs
 * one (the backend's liveness check reports it dropped) and starts a
 * replacement; then keeps updating a worker's `load` until the duration is
 * over (or SIGINT/SIGTERM). It then stops every worker (each withdraws
 * itself), waits until the namespace is empty, unsubscribes and prints a
 * summary.
 *
 * Output: on a terminal, a live table (and the summary under it); otherwise
 * every event as NDJSON on stdout (like `watch --json`), and the demo's
 * actions and summary as text lines on stderr.
 *
 * @example
 * await runDemo(context, { workers: 4, durationMs: 15_000, tty: true });
 *
 * @param context The command's context.
 * @param settings Workers, duration, output mode.
 * @returns The exit status.
 */
export async function runDemo(context: CommandContext, settings: DemoSettings): Promise<number> {
  const { stdout, stderr, signal, namespace } = context;
  const started = Date.now();
  const discovery = await context.discovery();
  const counts: Record<DiscoveryEventType, number> = { 'worker-added': 0, 'worker-updated': 0, 'worker-dropped': 0 };
  let state: TableState = new Map();
  /** Every event, after the table and the counts have taken it (for `until`). */
  const seen = new Subject<DiscoveryEvent>();
  let failure: unknown;
  // Aborted by SIGINT/SIGTERM or by a failure of the event stream.
  const stopper = new AbortController();
  const stop = stopper.signal;
  const onSignal = (): void => stopper.abort();
  signal.addEventListener('abort', onSignal, { once: true });
  if (signal.aborted) stopper.abort();

  const table = settings.tty
    ? new LiveTable(stdout, {
        title: `woolrx demo · namespace ${namespace} · Ctrl-C to stop`,
      })
    : undefined;
  const note = (text: string): void => {
    if (table === undefined) stderr.write(`woolrx demo: ${text}\n`);
    else table.note(`${seconds(Date.now() - started).padStart(6)}  ${text}`);
  };

  const subscriptions: Subscription[] = [
    discovery.diagnostics.subscribe((diagnostic) => {
      const uid = diagnostic.uid === undefined ? '' : ` (worker ${diagnostic.uid.slice(0, 8)})`;
      note(`${diagnostic.kind}${uid}: ${diagnostic.message}`);
    }),
  ];
  subscriptions.push(
    discovery.events().subscribe({
      next: (event) => {
        counts[event.type] += 1;
        state = applyTableEvent(state, event, Date.now());
        if (table === undefined) stdout.write(`${formatEventJson(event)}\n`);
        else table.apply(event);
        seen.next(event);
      },
      error: (error: unknown) => {
        failure = error;
        stopper.abort();
      },
    }),
  );

  /** Resolves true once `test` holds (checked now and on every event), false on timeout or stop. */
  const until = (test: () => boolean, timeoutMs: number, when: AbortSignal = stop): Promise<boolean> =>
    firstValueFrom(
      seen.pipe(
        startWith(undefined),
        first(() => test()),
        map(() => true),
        timeout({ first: timeoutMs, with: () => of(false) }),
        takeUntil(aborted(when)),
      ),
      { defaultValue: false },
    );

  const processes: DemoWorkerProcess[] = [];
  const startWorker = (index: number, label: string): DemoWorkerProcess => {
    const worker = new DemoWorkerProcess(specFor(index), namespace);
    processes.push(worker);
    note(`${label} worker ${worker.spec.uid.slice(0, 8)} (pid ${worker.pid}, ${worker.spec.tags.join(',')})`);
    void worker.exited.then(({ code }) => {
      if (code !== 0 && code !== null)
        note(`worker ${worker.spec.uid.slice(0, 8)} exited ${code}: ${worker.stderr.trim()}`);
    });
    return worker;
  };
  const live = (worker: DemoWorkerProcess): boolean => state.has(worker.spec.uid);
  const pause = Math.min(1500, Math.max(150, Math.round(settings.durationMs / 12)));
  let finalWorkers: TableState | undefined;

  try {
    // The scenario: start, update two, kill one, replace it.
    const first = Array.from({ length: settings.workers }, (_, index) => startWorker(index, 'started'));
    await until(() => first.every(live), STEP_TIMEOUT_MS);
    const [a, b] = first;
    if (a !== undefined && !stop.aborted) {
      await sleep(pause, stop);
      note(`update ${a.spec.uid.slice(0, 8)}: tag busy, load=0.93`);
      a.update({ tags: [...a.spec.tags, 'busy'], extra: { ...a.spec.extra, load: '0.93' } });
    }
    if (b !== undefined && !stop.aborted) {
      await sleep(pause, stop);
      note(`update ${b.spec.uid.slice(0, 8)}: zone=ap-3`);
      b.update({ extra: { ...b.spec.extra, zone: 'ap-3' } });
    }
    const victim = first.at(-1);
    if (victim !== undefined && !stop.aborted) {
      await sleep(pause, stop);
      note(`SIGKILL worker ${victim.spec.uid.slice(0, 8)} (pid ${victim.pid}): it cannot withdraw itself`);
      victim.kill();
      if (await until(() => !live(victim), STEP_TIMEOUT_MS)) {
        note(`worker ${victim.spec.uid.slice(0, 8)} reported dropped: its pid is gone, the slot was reclaimed`);
      }
    }
    if (!stop.aborted) {
      await sleep(pause, stop);
      const replacement = startWorker(settings.workers, 'replacement');
      await until(() => live(replacement), STEP_TIMEOUT_MS);
    }
    // Then stay live until the duration is over, moving one worker's load now and then.
    for (let step = 0; !stop.aborted && Date.now() - started < settings.durationMs; step += 1) {
      await sleep(Math.min(pause * 2, settings.durationMs - (Date.now() - started)), stop);
      const running = processes.filter((worker) => worker.running && live(worker));
      const pick = running[step % Math.max(1, running.length)];
      if (pick !== undefined && !stop.aborted && Date.now() - started < settings.durationMs) {
        pick.update({ extra: { ...pick.spec.extra, load: (((step * 37) % 100) / 100).toFixed(2) } });
      }
    }
  } finally {
    finalWorkers = state;
    // Shutdown: every worker withdraws itself; wait until all are seen gone.
    note('stopping the workers');
    await Promise.all(processes.map((worker) => worker.stop()));
    const drained = new AbortController();
    await until(() => state.size === 0, 5000, drained.signal);
    for (const subscription of subscriptions) subscription.unsubscribe();
    table?.close();
    signal.removeEventListener('abort', onSignal);
  }

  const lines = [
    `${seconds(Date.now() - started)} on namespace ${namespace}; ` +
      `events: ${counts['worker-added']} added, ${counts['worker-updated']} updated, ` +
      `${counts['worker-dropped']} dropped`,
    `workers at the end (${finalWorkers?.size ?? 0}, before shutdown):`,
    ...[...(finalWorkers?.values() ?? [])].map(
      ({ worker }) =>
        `  ${worker.uid.slice(0, 8)} ${worker.address} pid ${worker.pid} ${worker.version} ` +
        `tags ${worker.tags.join(',') || '-'} ` +
        `extra ${
          Object.entries(worker.extra)
            .map(([k, v]) => `${k}=${v}`)
            .join(',') || '-'
        }`,
    ),
    state.size === 0
      ? `all ${processes.length} worker processes stopped; namespace empty`
      : `${state.size} worker(s) still registered after shutdown`,
  ];
  const text =
    table === undefined
      ? lines.map((line) => `woolrx demo: ${line}`)
      : [`woolrx demo: ${lines[0] ?? ''}`, ...lines.slice(1)];
  (table === undefined ? stderr : stdout).write(`${text.join('\n')}\n`);
  if (failure !== undefined) {
    stderr.write(`woolrx demo: ${failure instanceof Error ? failure.message : JSON.stringify(failure)}\n`);
    return 1;
  }
  return state.size === 0 ? 0 : 1;
}
