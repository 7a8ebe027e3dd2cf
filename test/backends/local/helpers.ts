// Shared helpers of the local backend tests: unique namespaces, child
// processes driven over IPC, condition waits, and the leftovers check.
import assert from 'node:assert/strict';
import { fork, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Observable, Subscription } from 'rxjs';
import type { DiscoveryDiagnostic } from '../../../src/discovery/types.js';
import type { DiscoveryEvent } from '../../../src/events/types.js';
import type { WorkerInfo } from '../../../src/model/types.js';
import { workerInfo } from '../../../src/model/workerInfo.js';
import { blockName } from '../../../src/backends/local/block/blockFile.js';
import { decodeWorker } from '../../../src/codec/decodeWorker.js';
import { shortHash } from '../../../src/backends/local/names/shortHash.js';
import { LockTimeoutError } from '../../../src/backends/local/lock/LockTimeoutError.js';
import { WoolrxError } from '../../../src/errors/WoolrxError.js';

/** For `assert.rejects`: a LockTimeoutError naming `namespace` and `timeout` (ms), code and message included. */
export function isLockTimeout(namespace: string, timeout: number): (error: unknown) => true {
  return (error: unknown) => {
    assert.ok(error instanceof LockTimeoutError);
    assert.ok(error instanceof WoolrxError);
    assert.equal(error.code, 'WOOLRX_LOCK_TIMEOUT');
    assert.equal(error.namespace, namespace);
    assert.equal(error.timeout, timeout);
    assert.match(error.message, new RegExp(`${namespace}.*${timeout} ms`));
    return true;
  };
}

export const CHILDREN = join(dirname(fileURLToPath(import.meta.url)), 'children');
export const TMP = realpathSync(tmpdir());

/** Every namespace this process made, for the sweep at exit. */
const made = new Set<string>();

/**
 * A namespace no other test (or run) uses. Whatever of it is still there
 * when this process exits — a test failed before its cleanup, an `after`
 * check threw before reaching the rest — is removed then (see
 * {@link sweepAtExit}); the checks in `after` still report it.
 */
export function uniqueNamespace(tag: string): string {
  const namespace = `woolrx-test-${tag}-${process.pid}-${randomUUID().slice(0, 8)}`;
  made.add(namespace);
  if (made.size === 1) process.once('exit', sweepAtExit);
  return namespace;
}

/**
 * Removes what {@link leftovers} finds of every namespace made here, and
 * this process's stray test files; says so on stderr and fails the file
 * (exit status 1): the `after` checks had not caught it.
 */
function sweepAtExit(): void {
  const left: string[] = [];
  for (const namespace of made) {
    for (const path of leftovers(namespace)) {
      left.push(path);
      rmSync(path, { recursive: true, force: true });
    }
  }
  left.push(...strayTestFiles());
  if (left.length === 0) return;
  process.stderr.write(
    `removed at exit what this test file left behind (a failed test, or its after() checks missed it):\n${left.map((path) => `  ${path}\n`).join('')}`,
  );
  process.exitCode = 1;
}

/** A valid worker with a fresh uid; pid defaults to this process (alive). */
export function makeWorker(overrides: Partial<Parameters<typeof workerInfo>[0]> = {}): WorkerInfo {
  return workerInfo({
    uid: randomUUID(),
    address: `127.0.0.1:${10_000 + Math.floor(Math.random() * 50_000)}`,
    pid: process.pid,
    version: '1.0.0',
    ...overrides,
  });
}

/** Resolves once `condition()` is truthy; rejects naming `what` after `timeout` ms. */
export async function waitFor<T>(condition: () => T, what: string, timeout = 10_000): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeout;
  for (;;) {
    const value = condition();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeout} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Subscribes and records every event and the current worker set. */
export class Recorder {
  readonly events: DiscoveryEvent[] = [];
  readonly workers = new Map<string, WorkerInfo>();
  readonly diagnostics: DiscoveryDiagnostic[] = [];
  readonly #subscriptions: Subscription[] = [];
  error: unknown;

  constructor(events: Observable<DiscoveryEvent>, diagnostics?: Observable<DiscoveryDiagnostic>) {
    if (diagnostics) this.#subscriptions.push(diagnostics.subscribe((d) => this.diagnostics.push(d)));
    this.#subscriptions.push(
      events.subscribe({
        next: (event) => {
          this.events.push(event);
          if (event.type === 'worker-dropped') this.workers.delete(event.worker.uid);
          else this.workers.set(event.worker.uid, event.worker);
        },
        error: (error: unknown) => {
          this.error = error;
        },
      }),
    );
  }

  of(type: DiscoveryEvent['type'], uid: string): DiscoveryEvent[] {
    return this.events.filter((event) => event.type === type && event.worker.uid === uid);
  }

  stop(): void {
    for (const subscription of this.#subscriptions) subscription.unsubscribe();
  }
}

export interface ChildReply {
  readonly id: number;
  readonly ok: boolean;
  readonly value?: unknown;
  readonly error?: { name: string; code?: string; message: string; capacity?: number; size?: number; uid?: string };
}

/** A child process running one of ./children/*.ts, driven by request/reply over IPC. */
export class Child {
  /** Every child still running, so a failing test cannot leave one behind (see killChildren). */
  static readonly running = new Set<Child>();
  readonly process: ChildProcess;
  readonly messages: unknown[] = [];
  readonly exited: Promise<number | null>;
  #next = 0;
  readonly #waiting = new Map<number, (reply: ChildReply) => void>();

  constructor(script: string, args: readonly string[] = []) {
    this.process = fork(join(CHILDREN, script), args, {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    Child.running.add(this);
    this.exited = new Promise((resolve) =>
      this.process.once('exit', (code) => {
        Child.running.delete(this);
        resolve(code);
      }),
    );
    this.process.on('message', (message: unknown) => {
      const reply = message as Partial<ChildReply>;
      if (typeof reply.id === 'number' && this.#waiting.has(reply.id)) {
        this.#waiting.get(reply.id)?.(reply as ChildReply);
        this.#waiting.delete(reply.id);
      } else {
        this.messages.push(message);
      }
    });
  }

  get pid(): number {
    return this.process.pid ?? -1;
  }

  /** Sends a request and resolves with the child's reply. */
  request(message: Record<string, unknown>, timeout = 20_000): Promise<ChildReply> {
    const id = ++this.#next;
    return new Promise<ChildReply>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`child did not answer ${JSON.stringify(message)}`)), timeout);
      this.#waiting.set(id, (reply) => {
        clearTimeout(timer);
        resolve(reply);
      });
      this.process.send({ ...message, id });
    });
  }

  /** Like request(), but rejects unless the child reports success. */
  async call(message: Record<string, unknown>): Promise<unknown> {
    const reply = await this.request(message);
    if (!reply.ok)
      throw new Error(`child failed ${String(message['op'])}: ${reply.error?.name}: ${reply.error?.message}`);
    return reply.value;
  }

  kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<number | null> {
    this.process.kill(signal);
    return this.exited;
  }
}

/** SIGKILLs every child still running (call in `after`, before checking leftovers). */
export async function killChildren(): Promise<void> {
  await Promise.all([...Child.running].map((child) => child.kill('SIGKILL')));
}

/** What a namespace may leave behind: its segment, these workers' blocks, notify dir, lock. */
export function leftovers(namespace: string, uids: Iterable<string> = []): string[] {
  const hash = shortHash(namespace);
  const candidates = [
    join('/dev/shm', hash),
    ...[...uids].map((uid) => join('/dev/shm', blockName(uid))),
    join(TMP, `wool-${namespace}`),
    join('/dev/shm', `woolrx-lock-${hash}`),
    join(TMP, `wool-lock-${hash}`),
  ];
  return candidates.filter((path) => existsSync(path));
}

/**
 * Asserts (after waiting a little for asynchronous cleanup) that nothing of
 * the namespace remains; what does is removed before the assertion fails,
 * so that a failing test leaves nothing behind either.
 */
export async function assertClean(namespace: string, uids: Iterable<string> = []): Promise<void> {
  const all = [...uids];
  try {
    await waitFor(() => leftovers(namespace, all).length === 0, `cleanup of ${namespace}`, 3_000);
  } catch {
    const left = leftovers(namespace, all);
    for (const path of left) rmSync(path, { recursive: true, force: true });
    assert.deepEqual(left, [], `leftovers of namespace ${namespace}`);
  }
}

/**
 * Everything in /dev/shm and the temp directory that this process's tests
 * left: worker blocks holding a worker with this process's pid, and
 * notification directories of this process's test namespaces. What is
 * found is removed (a failing test leaves nothing for the next run) and
 * returned, for the caller's assertion.
 */
export function strayTestFiles(): string[] {
  const stray: string[] = [];
  for (const name of readdirSync('/dev/shm')) {
    const path = join('/dev/shm', name);
    try {
      const bytes = readFileSync(path);
      const length = bytes.readUInt32LE(0);
      if (bytes.length > 65_536 || length + 4 > bytes.length) continue;
      if (decodeWorker(bytes.subarray(4, 4 + length)).pid === process.pid) stray.push(path);
    } catch {
      // A directory, someone else's object, or not a worker block.
    }
  }
  for (const name of readdirSync(TMP)) {
    if (name.startsWith('wool-woolrx-test-') && name.includes(`-${process.pid}-`)) stray.push(join(TMP, name));
  }
  for (const path of stray) rmSync(path, { recursive: true, force: true });
  return stray;
}

/**
 * What a function throws (failing the test when it returns).
 * @param run The function.
 * @returns The error.
 */
export function thrown(run: () => unknown): NodeJS.ErrnoException {
  try {
    run();
  } catch (error) {
    return error as NodeJS.ErrnoException;
  }
  assert.fail('did not throw');
}
