import { firstValueFrom, last, map, race, scan, takeWhile } from 'rxjs';
import type { DiscoveryEvent, DiscoveryItem } from '../../events/types.js';
import { cliErrorMessage } from '../cliErrorMessage.js';
import type { WorkerInfo } from '../../model/types.js';
import { aborted } from '../aborted.js';
import { diagnosticLines } from '../diagnosticLines.js';
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
  const widths = HEADERS.map((header, column) => Math.max(header.length, ...rows.map((row) => (row[column] ?? '').length)));
  const line = (cells: readonly string[]): string =>
    cells
      .map((text, column) => (column === 2 ? text.padStart(widths[column] ?? 0) : text.padEnd(widths[column] ?? 0)))
      .join('  ')
      .trimEnd();
  const count = `${workers.length} worker${workers.length === 1 ? '' : 's'}`;
  return `${[line(HEADERS), ...rows.map(line), count].join('\n')}\n`;
}

/**
 * `woolrx list --namespace NS [--json [--full]]`: the workers of a
 * namespace once the backend has the complete initial state, then exit 0
 * (like `kubectl get` without `-w`). A table, or with `--json` one worker
 * object per line (NDJSON; nothing for an empty pool).
 */
export const list: CliCommand = {
  name: 'list',
  summary: 'Print the workers of a namespace once, then exit',
  synopsis: '--namespace NS [--json [--full]] [options]',
  flags: {
    json: { type: 'boolean', description: 'One JSON worker object per line (NDJSON) instead of a table' },
    full: { type: 'boolean', description: "With --json: every gRPC channel option, wool's defaults included" },
  },
  validate: (values) => {
    if (values['full'] === true && values['json'] !== true) throw new UsageError('--full goes with --json');
  },
  run: async (context) => {
    const { stdout, stderr, signal, values } = context;
    const discovery = await context.discovery();
    const diagnostics = discovery.diagnostics.subscribe(diagnosticLines({ line: (text) => stderr.write(`woolrx list: ${text}\n`) }));
    try {
      // The initial workers, up to the synced marker.
      const initial = discovery.watch().pipe(
        takeWhile((item: DiscoveryItem): item is DiscoveryEvent => item.type !== 'synced'),
        scan((workers, item) => {
          const next = new Map(workers);
          if (item.type === 'worker-dropped') next.delete(item.worker.uid);
          else next.set(item.worker.uid, item.worker);
          return next;
        }, new Map<string, WorkerInfo>()),
        last(undefined, new Map<string, WorkerInfo>()),
        map((workers) => [...workers.values()]),
      );
      const workers = await firstValueFrom(race(aborted(signal).pipe(map(() => undefined)), initial));
      if (workers === undefined) return 0;
      if (values['json'] === true) {
        const full = values['full'] === true;
        stdout.write(workers.map((worker) => `${JSON.stringify(workerJson(worker, full))}\n`).join(''));
      } else {
        stdout.write(listTable(workers));
      }
      return 0;
    } catch (error) {
      stderr.write(`woolrx list: ${cliErrorMessage(error, context.namespace)}\n`);
      return 1;
    } finally {
      diagnostics.unsubscribe();
    }
  },
};

