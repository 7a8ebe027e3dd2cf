import { filter, firstValueFrom, map, race } from 'rxjs';
import { cliErrorMessage } from '../cliErrorMessage.js';
import type { WorkerInfo } from '../../model/types.js';
import { aborted } from '../aborted.js';
import { BackendUnreachable } from '../BackendUnreachable.js';
import { initialWorkers } from '../initialWorkers.js';
import { TAG_FILTER_FLAG, tagFilter } from '../tagFilter.js';
import { diagnosticLines } from '../diagnosticLines.js';
import { didYouMean } from '../didYouMean.js';
import { workerJson } from '../formatEventJson.js';
import { safeCell } from '../table/safeCell.js';
import type { CliCommand } from '../types.js';
import { UsageError } from '../UsageError.js';

const HEADERS = ['UID', 'ADDRESS', 'PID', 'VERSION', 'TAGS', 'EXTRA'] as const;

function listTable(workers: readonly WorkerInfo[]): string {
  const rows = workers.map((worker) => [
    worker.uid,
    safeCell(worker.address),
    String(worker.pid),
    safeCell(worker.version),
    worker.tags.length === 0 ? '-' : worker.tags.map(safeCell).join(','),
    Object.entries(worker.extra)
      .map(([key, value]) => `${safeCell(key)}=${safeCell(value)}`)
      .join(',') || '-',
  ]);
  const widths = HEADERS.map((header, column) =>
    Math.max(header.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const line = (cells: readonly string[]): string =>
    cells
      .map((text, column) => (column === 2 ? text.padStart(widths[column] ?? 0) : text.padEnd(widths[column] ?? 0)))
      .join('  ')
      .trimEnd();
  const count = `${workers.length} worker${workers.length === 1 ? '' : 's'}`;
  return `${[line(HEADERS), ...rows.map(line), count].join('\n')}\n`;
}

/** The hint for a namespace that does not exist: the one meant, or those that do. */
function absentNamespace(namespace: string, present: readonly string[]): string {
  const meant = didYouMean(namespace, present);
  const shown = present.slice(0, 10).map((name) => JSON.stringify(name));
  const more = present.length > shown.length ? `, … (${present.length} in all)` : '';
  const here =
    meant !== undefined
      ? `; did you mean ${JSON.stringify(meant)}?`
      : present.length === 0
        ? ' (none exists here)'
        : `; namespaces here: ${shown.join(', ')}${more}`;
  return `no namespace ${JSON.stringify(namespace)} on this host${here}`;
}

/**
 * `woolrx list --namespace NS [--tag TAG]... [--json [--full]]`: the workers of a
 * namespace once the backend has the complete initial state, then exit 0
 * (like `kubectl get` without `-w`). A table, or with `--json` one worker
 * object per line (NDJSON; nothing for an empty pool).
 */
export const list: CliCommand = {
  name: 'list',
  summary: 'Print the workers of a namespace once, then exit',
  synopsis: '--namespace NS [--tag TAG]... [--json [--full]] [options]',
  flags: {
    json: { type: 'boolean', description: 'One JSON worker object per line (NDJSON) instead of a table' },
    full: { type: 'boolean', description: "With --json: every gRPC channel option, wool's defaults included" },
    tag: TAG_FILTER_FLAG,
  },
  validate: (values) => {
    if (values['full'] === true && values['json'] !== true) throw new UsageError('--full goes with --json');
    tagFilter(values);
  },
  run: async (context) => {
    const { stdout, stderr, signal, values } = context;
    // Before subscribing: a watch may create the namespace it waits for.
    const present = context.namespaces?.();
    const discovery = await context.discovery();
    // A failure the backend retries is not printed: if it lasts, it is the one line list fails with.
    const diagnostics = discovery.diagnostics
      .pipe(
        filter(
          (diagnostic) =>
            context.reachTimeout === undefined ||
            !(diagnostic.kind === 'recovered' || (diagnostic.kind === 'warning' && diagnostic.error !== undefined)),
        ),
      )
      .subscribe(diagnosticLines({ line: (text) => stderr.write(`woolrx list: ${text}\n`) }));
    try {
      const initial = initialWorkers(discovery, { filter: tagFilter(values), timeoutMs: context.reachTimeout });
      const workers = await firstValueFrom(race(aborted(signal).pipe(map(() => undefined)), initial));
      if (workers === undefined) return 0;
      if (workers.length === 0 && present !== undefined && !present.includes(context.namespace)) {
        stderr.write(`woolrx list: ${absentNamespace(context.namespace, present)}\n`);
      }
      if (values['json'] === true) {
        const full = values['full'] === true;
        stdout.write(workers.map((worker) => `${JSON.stringify(workerJson(worker, full))}\n`).join(''));
      } else {
        stdout.write(listTable(workers));
      }
      return 0;
    } catch (error) {
      if (error instanceof BackendUnreachable) {
        const cause = error.failure.error ?? error;
        stderr.write(
          `woolrx list: ${cliErrorMessage(cause, context.namespace)} (gave up after ${error.timeoutMs} ms)\n`,
        );
        return 1;
      }
      stderr.write(`woolrx list: ${cliErrorMessage(error, context.namespace)}\n`);
      return 1;
    } finally {
      diagnostics.unsubscribe();
    }
  },
};
