import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { DiscoveryEventType } from '../../src/events/types.js';
import type { WorkerInfo } from '../../src/model/types.js';

const main = fileURLToPath(new URL('./fixtures/childPublisher.ts', import.meta.url));

/** A publisher living in another process (see fixtures/childPublisher.ts). */
export interface ChildPublisher {
  /** The child's pid. */
  readonly pid: number;
  /** Publishes there; rejects with the child's error. */
  publish(type: DiscoveryEventType, worker: WorkerInfo): Promise<void>;
  /** SIGKILLs the child (no close(), as a crash) and waits for its exit. */
  kill(): Promise<void>;
}

/**
 * Starts a child process holding one publisher of `backend`.
 * @param backend `'local'` or `'etcd'`.
 * @param namespace The namespace.
 * @param options The backend's options (JSON-serialisable).
 * @returns The child, once its publisher exists.
 */
export async function spawnChildPublisher(
  backend: 'local' | 'etcd',
  namespace: string,
  options: object,
): Promise<ChildPublisher> {
  const child = spawn(process.execPath, ['--import', 'tsx', main, backend, namespace, JSON.stringify(options)], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const exited = once(child, 'exit');
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const next = async (): Promise<Record<string, unknown>> => {
    const line = await lines.next();
    if (line.done === true) throw new Error(`the child publisher (${backend}) exited`);
    return JSON.parse(line.value) as Record<string, unknown>;
  };
  const ready = await next();
  let chain = Promise.resolve();
  return {
    pid: Number(ready['pid']),
    publish(type, worker) {
      const result = chain.then(async () => {
        child.stdin.write(`${JSON.stringify({ type, worker })}\n`);
        const answer = await next();
        if (answer['ok'] !== true) throw new Error(`child publish failed: ${String(answer['error'])}`);
      });
      chain = result.catch(() => undefined);
      return result;
    },
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}
