import { spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import type { DemoWorkerSpec, DemoWorkerUpdate } from './types.js';

/**
 * One worker process of the demo: the running `woolrx` itself (same
 * Node.js, same flags, same entry script) with `demo --as-worker JSON`.
 * It runs in its own process group, so a Ctrl-C in the terminal reaches
 * only the demo, which then stops its workers in order; and it withdraws
 * its worker when its stdin closes, so it does not outlive a killed demo.
 *
 * @example
 * const worker = new DemoWorkerProcess(spec, 'pool');
 * worker.update({ tags: ['gpu', 'busy'] });
 * await worker.stop();
 */
export class DemoWorkerProcess {
  /** The child process. */
  readonly child: ChildProcessWithoutNullStreams;
  /** Resolves when the child has exited. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** What the child wrote on stderr. */
  stderr = '';

  /**
   * @param spec The worker to publish.
   * @param namespace The namespace (local backend).
   * @param entry The `woolrx` script to run; default: the one running now.
   */
  constructor(
    readonly spec: DemoWorkerSpec,
    namespace: string,
    entry: string | undefined = process.argv[1],
  ) {
    if (entry === undefined) {
      throw new TypeError(
        'woolrx demo: entry must be the woolrx script to run for the workers, got undefined (process.argv[1] is unset)',
      );
    }
    this.child = spawn(
      process.execPath,
      [...process.execArgv, entry, 'demo', '--as-worker', JSON.stringify(spec), '--namespace', namespace],
      { stdio: 'pipe', detached: true },
    );
    this.child.stdout.resume();
    this.child.stderr.setEncoding('utf8');
    this.child.stderr.on('data', (chunk: string) => {
      this.stderr += chunk;
    });
    this.child.stdin.on('error', () => undefined);
    this.exited = new Promise((resolve) => {
      this.child.on('exit', (code, signal) => resolve({ code, signal }));
      this.child.on('error', (error) => {
        this.stderr += `${error.message}\n`;
        resolve({ code: null, signal: null });
      });
    });
  }

  /** The child's pid (-1 if it could not be started). */
  get pid(): number {
    return this.child.pid ?? -1;
  }

  /** Whether the child is still running. */
  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Sends a change of tags and/or extra (published as `worker-updated`). */
  update(update: DemoWorkerUpdate): void {
    if (this.running) this.child.stdin.write(`${JSON.stringify(update)}\n`);
  }

  /** Kills the child without warning (it cannot withdraw its worker). */
  kill(): void {
    if (this.running) this.child.kill('SIGKILL');
  }

  /** Asks the child to withdraw and exit; SIGKILL after `timeoutMs`. */
  async stop(timeoutMs = 5000): Promise<void> {
    if (this.running) this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.kill(), timeoutMs);
    try {
      await this.exited;
    } finally {
      clearTimeout(timer);
    }
  }
}
