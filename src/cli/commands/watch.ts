import type { Subscription } from 'rxjs';
import { formatEventJson } from '../formatEventJson.js';
import { formatEventText } from '../formatEventText.js';
import { LiveTable } from '../table/LiveTable.js';
import type { CliCommand } from '../types.js';

/**
 * `woolrx watch --namespace NS [--json]`: prints every worker event of a
 * namespace — NDJSON with `--json`, a live table redrawn in place when
 * stdout is a terminal, aligned text lines otherwise — until SIGINT or
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
          })
        : undefined;
    return new Promise<number>((resolve) => {
      const subscriptions: Subscription[] = [];
      let done = false;
      const finish = (code: number): void => {
        if (done) return;
        done = true;
        signal.removeEventListener('abort', onAbort);
        for (const subscription of subscriptions) subscription.unsubscribe();
        table?.close();
        resolve(code);
      };
      const onAbort = (): void => finish(0);
      signal.addEventListener('abort', onAbort, { once: true });
      if (signal.aborted) {
        finish(0);
        return;
      }
      subscriptions.push(
        discovery.diagnostics.subscribe((diagnostic) => {
          const uid = diagnostic.uid === undefined ? '' : ` (worker ${diagnostic.uid})`;
          if (table !== undefined) {
            table.note(`${diagnostic.kind}${uid}: ${diagnostic.message}`);
            return;
          }
          stderr.write(`woolrx watch: ${diagnostic.kind}${uid}: ${diagnostic.message}\n`);
        }),
      );
      if (done) return;
      subscriptions.push(
        discovery.events().subscribe({
          next: (event) => {
            if (done || signal.aborted) return;
            if (table !== undefined) {
              table.apply(event);
              return;
            }
            stdout.write(`${json ? formatEventJson(event) : formatEventText(event, now())}\n`);
          },
          error: (error: unknown) => {
            stderr.write(`woolrx watch: ${error instanceof Error ? error.message : String(error)}\n`);
            finish(1);
          },
          complete: () => finish(0),
        }),
      );
      if (done) for (const subscription of subscriptions) subscription.unsubscribe();
    });
  },
};
