import { randomUUID } from 'node:crypto';
import { packageVersion } from '../packageVersion.js';
import type { CliCommand } from '../types.js';
import { firstValueFrom } from 'rxjs';
import { cliErrorMessage } from '../cliErrorMessage.js';
import { aborted } from '../aborted.js';
import { diagnosticLines } from '../diagnosticLines.js';
import { workerFromFlags } from '../workerFromFlags.js';

const defaults = () => ({ uid: randomUUID, pid: process.pid, version: packageVersion });

/**
 * `woolrx publish --namespace NS --address HOST:PORT [...]`: registers one
 * worker, prints its uid, stays until SIGINT, SIGTERM or SIGHUP, then withdraws it.
 */
export const publish: CliCommand = {
  name: 'publish',
  summary: 'Register one worker, print its uid, withdraw it when interrupted',
  synopsis: '--namespace NS --address HOST:PORT [options]',
  flags: {
    address: {
      type: 'string',
      short: 'a',
      valueName: 'ADDR',
      description: 'host:port, [v6]:port or unix:path (required)',
    },
    uid: { type: 'string', valueName: 'UUID', description: 'Worker uid (default: a random UUID)' },
    pid: { type: 'string', valueName: 'N', description: "Worker pid (default: this process's pid)" },
    version: { type: 'string', valueName: 'V', description: "Worker version (default: woolrx's version)" },
    tag: { type: 'string', multiple: true, valueName: 'TAG', description: 'A capability tag' },
    extra: { type: 'string', multiple: true, valueName: 'K=V', description: 'A key/value pair of metadata' },
    secure: { type: 'boolean', description: 'The worker requires TLS' },
  },
  validate: (values) => {
    workerFromFlags(values, defaults());
  },
  run: async (context) => {
    const { stdout, stderr, signal, values } = context;
    const worker = workerFromFlags(values, defaults());
    const discovery = await context.discovery();
    const diagnostics = discovery.diagnostics.subscribe(
      diagnosticLines({ line: (text) => stderr.write(`woolrx publish: ${text}\n`) }),
    );
    const publisher = discovery.publisher();
    try {
      try {
        await publisher.publish('worker-added', worker);
      } catch (error) {
        stderr.write(`woolrx publish: ${cliErrorMessage(error, context.namespace)}\n`);
        return 1;
      }
      stdout.write(`${worker.uid}\n`);
      await firstValueFrom(aborted(signal));
      return 0;
    } finally {
      await publisher.close();
      diagnostics.unsubscribe();
    }
  },
};
