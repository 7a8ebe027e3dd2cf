import { errorMessage } from '../../discovery/errorMessage.js';
import { createInterface } from 'node:readline';
import { workerInfo } from '../../model/workerInfo.js';
import type { WorkerInfo } from '../../model/types.js';
import { packageVersion } from '../packageVersion.js';
import type { CommandContext } from '../types.js';
import type { DemoWorkerSpec, DemoWorkerUpdate } from './types.js';

/**
 * One of the demo's worker processes (`woolrx demo --as-worker JSON`):
 * publishes the worker (with its own pid), prints its uid, then applies
 * each JSON line of stdin (`{"tags"?, "extra"?}`) as a `worker-updated`.
 * It withdraws the worker and resolves 0 when stdin ends (the demo went
 * away, even killed) or on SIGINT/SIGTERM.
 *
 * @example
 * await runDemoWorker(spec, context, process.stdin);
 *
 * @param spec The worker to publish.
 * @param context The command's context (stdout, stderr, signal, discovery).
 * @param stdin Where the updates come from.
 * @returns The exit status.
 */
export async function runDemoWorker(
  spec: DemoWorkerSpec,
  context: CommandContext,
  stdin: NodeJS.ReadableStream,
): Promise<number> {
  const { stdout, stderr, signal } = context;
  let worker: WorkerInfo = workerInfo({ ...spec, pid: process.pid, version: packageVersion });
  const discovery = await context.discovery();
  const publisher = discovery.publisher();
  const lines = createInterface({ input: stdin, crlfDelay: Infinity });
  try {
    await publisher.publish('worker-added', worker);
    stdout.write(`${worker.uid}\n`);
    let queue = Promise.resolve();
    await new Promise<void>((resolve) => {
      signal.addEventListener('abort', () => resolve(), { once: true });
      if (signal.aborted) resolve();
      lines.on('close', () => resolve());
      lines.on('line', (line) => {
        queue = queue.then(async () => {
          try {
            const update = JSON.parse(line) as DemoWorkerUpdate;
            worker = workerInfo({
              ...worker,
              tags: update.tags ?? worker.tags,
              extra: update.extra ?? worker.extra,
            });
            await publisher.publish('worker-updated', worker);
          } catch (error) {
            stderr.write(`woolrx demo worker: ${errorMessage(error)}\n`);
          }
        });
      });
    });
    await queue;
    return 0;
  } catch (error) {
    stderr.write(`woolrx demo worker: ${errorMessage(error)}\n`);
    return 1;
  } finally {
    lines.close();
    if ('destroy' in stdin && typeof stdin.destroy === 'function') (stdin.destroy as () => void)();
    await publisher.close();
  }
}
