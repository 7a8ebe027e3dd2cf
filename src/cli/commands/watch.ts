import { catchError, endWith, finalize, firstValueFrom, ignoreElements, map, mergeWith, of, race, tap } from 'rxjs';
import { errorMessage } from '../../discovery/errorMessage.js';
import { aborted } from '../aborted.js';
import { formatEventJson } from '../formatEventJson.js';
import { formatEventText } from '../formatEventText.js';
import { LiveTable } from '../table/LiveTable.js';
import type { CliCommand } from '../types.js';

/**
 * `woolrx watch --namespace NS [--json]`: prints every worker event of a
 * namespace — NDJSON with `--json`, a live table redrawn in place when
 * stdout is a terminal, aligned text lines otherwise — until SIGINT, SIGHUP or
 * SIGTERM (or until stdout goes away), then unsubscribes. Diagnostics
 * (skipped malformed records) go to stderr, or under the live table.
 */
export const watch: CliCommand = {
  name: 'watch',
  summary: 'Print the worker events of a namespace until interrupted',
  synopsis: '--namespace NS [--json] [options]',
  flags: {
    json: {
      type: 'boolean',
      description: 'One JSON object per event and line (NDJSON) instead of text',
    },
  },
  run: async (context) => {
    const { stdout, stderr, signal, values } = context;
    const discovery = await context.discovery();
    const json = values['json'] === true;
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
      tap((diagnostic) => {
        const uid = diagnostic.uid === undefined ? '' : ` (worker ${diagnostic.uid})`;
        note(`${diagnostic.kind}${uid}: ${diagnostic.message}`);
      }),
    );
    // The table shows "loading workers…" until the initial state is complete,
    // and every event as it happened (as --json does).
    const output =
      table !== undefined
        ? discovery.watch().pipe(tap((item) => (item.type === 'synced' ? table.synced() : table.apply(item))))
        : discovery.events().pipe(tap((event) => stdout.write(`${json ? formatEventJson(event) : formatEventText(event, now())}\n`)));
    const exitCode = output.pipe(
      ignoreElements(),
      endWith(0),
      catchError((error: unknown) => {
        stderr.write(`woolrx watch: ${errorMessage(error)}\n`);
        return of(1);
      }),
      mergeWith(diagnostics.pipe(ignoreElements())),
    );
    return firstValueFrom(race(aborted(signal).pipe(map(() => 0)), exitCode).pipe(finalize(() => table?.close())), {
      defaultValue: 0,
    });
  },
};
