import { catchError, endWith, finalize, firstValueFrom, ignoreElements, map, mergeWith, of, race, tap } from 'rxjs';
import { cliErrorMessage } from '../cliErrorMessage.js';
import { aborted } from '../aborted.js';
import { diagnosticLines } from '../diagnosticLines.js';
import { formatEventJson } from '../formatEventJson.js';
import { formatEventText } from '../formatEventText.js';
import { LiveTable } from '../table/LiveTable.js';
import type { CliCommand } from '../types.js';
import { TAG_FILTER_FLAG, tagFilter } from '../tagFilter.js';
import { UsageError } from '../UsageError.js';

/** The NDJSON line `watch --json` prints once the initial workers are out (`| head -1` ends on an empty pool). */
const SYNCED_LINE = '{"type":"synced"}';

/**
 * `woolrx watch --namespace NS [--json [--full]]`: prints every worker event of a
 * namespace — NDJSON with `--json` (the initial workers, then
 * `{"type":"synced"}`, then the changes), a live table redrawn in place when
 * stdout is a terminal, aligned text lines otherwise — until SIGINT, SIGHUP or
 * SIGTERM (or until stdout goes away), then unsubscribes. Diagnostics
 * (skipped malformed records) go to stderr, or under the live table.
 */
export const watch: CliCommand = {
  name: 'watch',
  summary: 'Print the worker events of a namespace until interrupted',
  synopsis: '--namespace NS [--tag TAG]... [--json [--full]] [options]',
  flags: {
    json: {
      type: 'boolean',
      description:
        'One JSON object per event and line (NDJSON), and {"type":"synced"} once the initial workers are out',
    },
    full: {
      type: 'boolean',
      description: "With --json: every gRPC channel option, wool's defaults included",
    },
    tag: TAG_FILTER_FLAG,
  },
  validate: (values) => {
    if (values['full'] === true && values['json'] !== true) throw new UsageError('--full goes with --json');
    tagFilter(values);
  },
  run: async (context) => {
    const { stdout, stderr, signal, values } = context;
    const discovery = await context.discovery();
    const filter = tagFilter(values);
    const json = values['json'] === true;
    const full = values['full'] === true;
    const now = context.now ?? (() => new Date());
    const table =
      !json && (stdout as { isTTY?: boolean }).isTTY === true
        ? new LiveTable(stdout, {
            title: `woolrx watch · namespace ${context.namespace} · Ctrl-C to stop`,
            now: () => now().getTime(),
            loading: true,
          })
        : undefined;
    const note = (text: string): void => {
      if (table !== undefined) table.note(text);
      else stderr.write(`woolrx watch: ${text}\n`);
    };
    const diagnostics = discovery.diagnostics.pipe(
      tap(diagnosticLines({ line: note, ...(table === undefined ? {} : { status: (text) => table.status(text) }) })),
    );
    // The table shows "loading workers…" until the initial state is complete,
    // and every event as it happened (as --json does).
    const output =
      table !== undefined
        ? discovery.watch(filter).pipe(tap((item) => (item.type === 'synced' ? table.synced() : table.apply(item))))
        : json
          ? discovery
              .watch(filter)
              .pipe(
                tap((item) => stdout.write(`${item.type === 'synced' ? SYNCED_LINE : formatEventJson(item, full)}\n`)),
              )
          : discovery.events(filter).pipe(tap((event) => stdout.write(`${formatEventText(event, now())}\n`)));
    const exitCode = output.pipe(
      ignoreElements(),
      endWith(0),
      catchError((error: unknown) => {
        stderr.write(`woolrx watch: ${cliErrorMessage(error, context.namespace)}\n`);
        return of(1);
      }),
      mergeWith(diagnostics.pipe(ignoreElements())),
    );
    return firstValueFrom(race(aborted(signal).pipe(map(() => 0)), exitCode).pipe(finalize(() => table?.close())), {
      defaultValue: 0,
    });
  },
};
