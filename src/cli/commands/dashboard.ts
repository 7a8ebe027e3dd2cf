import { diagnosticLines } from '../diagnosticLines.js';
import { startDashboard, type Dashboard } from '../dashboard/startDashboard.js';
import { parseIntegerFlag } from '../parseIntegerFlag.js';
import type { CliCommand, CliValues } from '../types.js';
import { UsageError } from '../UsageError.js';
import { firstValueFrom } from 'rxjs';
import { aborted } from '../aborted.js';

function portOf(values: CliValues): number {
  const text = values['port'];
  if (typeof text !== 'string') return 0;
  const port = parseIntegerFlag('port', text);
  if (port < 0 || port > 65_535) throw new UsageError(`--port: ${port} is not from 0 to 65535`);
  return port;
}

/**
 * `woolrx dashboard --namespace NS [--port P]`: serves a page with the live
 * worker table on 127.0.0.1 (fed by Server-Sent Events, one subscription
 * per open page), prints its URL, and runs until SIGINT, SIGTERM or SIGHUP.
 */
export const dashboard: CliCommand = {
  name: 'dashboard',
  summary: 'Serve a live worker table as a web page on 127.0.0.1 until interrupted',
  synopsis: '--namespace NS [--port P] [options]',
  flags: {
    port: { type: 'string', valueName: 'P', description: 'TCP port on 127.0.0.1 (default: a free one)' },
  },
  validate: (values) => {
    portOf(values);
  },
  run: async (context) => {
    const { stdout, stderr, signal, values } = context;
    const discovery = await context.discovery();
    const diagnostics = discovery.diagnostics.subscribe(
      diagnosticLines({ line: (text) => stderr.write(`woolrx dashboard: ${text}\n`) }),
    );
    try {
      const port = portOf(values);
      let server: Dashboard;
      try {
        server = await startDashboard(discovery, { port });
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'EADDRINUSE')
          throw new Error(
            `port ${port} is in use on 127.0.0.1; pick another with --port, or leave --port out for a free one`,
            { cause: error },
          );
        if (code === 'EACCES')
          throw new Error(`port ${port} needs privileges this process lacks; pick one above 1023 with --port`, {
            cause: error,
          });
        throw error;
      }
      try {
        stdout.write(`${server.url}\n`);
        await firstValueFrom(aborted(signal));
        return 0;
      } finally {
        await server.close();
      }
    } finally {
      diagnostics.unsubscribe();
    }
  },
};
