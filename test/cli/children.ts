// Helpers for tests that run real processes: the woolrx CLI (from source,
// through tsx), and checks that nothing is left behind.
import { spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
export const cliMain = join(repoRoot, 'src/cli/main.ts');

/** A unique namespace per test, so parallel files and reruns never meet. */
export function uniqueNamespace(label: string): string {
  return `woolrx-test-${label}-${process.pid}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
}

/** A child process with its stdout read line by line. */
export class Child {
  readonly process: ChildProcessWithoutNullStreams;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stderr = '';
  private readonly lines: string[] = [];
  private readonly waiters: ((line: string | undefined) => void)[] = [];
  private ended = false;

  constructor(command: string, args: readonly string[], env?: NodeJS.ProcessEnv, cwd: string = repoRoot) {
    this.process = spawn(command, args, {
      cwd,
      stdio: 'pipe',
      env: env === undefined ? process.env : { ...process.env, ...env },
    });
    this.process.stderr.setEncoding('utf8');
    this.process.stderr.on('data', (chunk: string) => {
      this.stderr += chunk;
    });
    const reader = createInterface({ input: this.process.stdout, crlfDelay: Infinity });
    reader.on('line', (line) => {
      const waiter = this.waiters.shift();
      if (waiter === undefined) this.lines.push(line);
      else waiter(line);
    });
    reader.on('close', () => {
      this.ended = true;
      for (const waiter of this.waiters.splice(0)) waiter(undefined);
    });
    this.exited = new Promise((resolve) => {
      this.process.on('exit', (code, signal) => resolve({ code, signal }));
    });
  }

  /** The next stdout line; rejects after `timeout` ms or at the end of stdout. */
  async line(timeout = 15_000): Promise<string> {
    const ready = this.lines.shift();
    if (ready !== undefined) return ready;
    if (this.ended) throw new Error(`stdout ended; stderr: ${this.stderr}`);
    return new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => {
        const index = this.waiters.indexOf(waiter);
        if (index >= 0) this.waiters.splice(index, 1);
        reject(new Error(`no stdout line within ${timeout} ms; stderr: ${this.stderr}`));
      }, timeout);
      const waiter = (line: string | undefined): void => {
        clearTimeout(timer);
        if (line === undefined) reject(new Error(`stdout ended; stderr: ${this.stderr}`));
        else resolve(line);
      };
      this.waiters.push(waiter);
    });
  }

  /**
   * The next worker event of `watch --json`, parsed: skips the
   * `{"type":"synced"}` marker that follows the initial workers.
   */
  async event(timeout = 15_000): Promise<unknown> {
    for (;;) {
      const line = await this.line(timeout);
      if (line !== '{"type":"synced"}') return JSON.parse(line) as unknown;
    }
  }

  /** Lines already read but not consumed. */
  pending(): readonly string[] {
    return this.lines;
  }

  /** Sends a signal and waits for the exit (SIGKILL after `timeout` ms). */
  async stop(signal: NodeJS.Signals = 'SIGTERM', timeout = 15_000) {
    if (this.process.exitCode === null && this.process.signalCode === null) this.process.kill(signal);
    const timer = setTimeout(() => this.process.kill('SIGKILL'), timeout);
    try {
      return await this.exited;
    } finally {
      clearTimeout(timer);
    }
  }
}

/** `woolrx <args>` from source. */
export function woolrx(args: readonly string[], env?: NodeJS.ProcessEnv): Child {
  return new Child(process.execPath, ['--import', 'tsx', cliMain, ...args], env);
}

/** wool's short_hash, written out here so the tests do not trust the code under test. */
export function shortHash(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('base64url').slice(0, 30);
}

/**
 * What a namespace and its workers could leave behind: POSIX shared-memory
 * objects (segment, blocks), woolrx's lock directory and journal, wool's
 * lock file and the notification directory.
 */
export function residue(namespace: string, uids: readonly string[]): string[] {
  const tmp = realpathSync(tmpdir());
  const shm = new Set(existsSync('/dev/shm') ? readdirSync('/dev/shm') : []);
  const left: string[] = [];
  const segment = shortHash(namespace);
  if (shm.has(segment)) left.push(`/dev/shm/${segment}`);
  if (shm.has(`woolrx-lock-${segment}`)) left.push(`/dev/shm/woolrx-lock-${segment}`);
  for (const uid of uids) {
    const block = shortHash(uid.replaceAll('-', '').toLowerCase());
    if (shm.has(block)) left.push(`/dev/shm/${block}`);
  }
  for (const path of [join(tmp, `wool-${namespace}`), join(tmp, `wool-lock-${segment}`)]) {
    if (existsSync(path)) left.push(path);
  }
  return left;
}

/**
 * Checks a namespace for residue and removes whatever was found (so a
 * failing test does not leave objects for the next run); returns what was left.
 */
export function sweep(namespace: string, uids: readonly string[]): string[] {
  const left = residue(namespace, uids);
  for (const path of left) rmSync(path, { recursive: true, force: true });
  return left;
}
