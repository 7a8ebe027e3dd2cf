// The bridge tests' owning side: a real worker_threads Worker running
// fixtures/owner.ts on one end of a real MessageChannel, and small helpers.
import assert from 'node:assert/strict';
import { MessageChannel, Worker } from 'node:worker_threads';
import type { MessagePort } from 'node:worker_threads';
import type { Observable, Subscription } from 'rxjs';
import type { WorkerInfoInit } from '../../src/model/types.js';

/** A worker thread's entry that registers tsx (threads do not inherit the test's loader), then loads `file`. */
export function tsxBootstrap(file: URL): string {
  return `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then(({ register }) => {
  register();
  return import(${JSON.stringify(file.href)});
});`;
}

interface Reply {
  readonly done: string;
  readonly active: number;
}

/** A worker thread owning a memory backend exposed on one end of a real MessageChannel. */
export class Owner {
  readonly thread: Worker;
  readonly port: MessagePort;
  /** Set if the thread died (an uncaught exception in the owning side). */
  crash: unknown = undefined;
  private readonly replies: Reply[] = [];
  private readonly waiters: ((reply: Reply) => void)[] = [];

  /**
   * @param expose What the owner exposes: its events (the default), the Discovery, or its watch() stream.
   * @param fixture The owner's module.
   */
  constructor(
    expose: 'events' | 'discovery' | 'watch' = 'events',
    fixture = new URL('./fixtures/owner.ts', import.meta.url),
  ) {
    const { port1, port2 } = new MessageChannel();
    this.port = port1;
    this.thread = new Worker(tsxBootstrap(fixture), {
      eval: true,
      workerData: { port: port2, expose },
      transferList: [port2],
    });
    this.thread.on('error', (error) => {
      this.crash = error;
    });
    this.thread.on('message', (reply: Reply) => {
      const waiter = this.waiters.shift();
      if (waiter === undefined) this.replies.push(reply);
      else waiter(reply);
    });
  }

  private reply(): Promise<Reply> {
    const ready = this.replies.shift();
    if (ready !== undefined) return Promise.resolve(ready);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  async ready(): Promise<void> {
    assert.equal((await this.reply()).done, 'ready');
  }

  /** Sends a command; resolves with the number of live upstream subscriptions after it. */
  async send(command: Record<string, unknown>): Promise<number> {
    this.thread.postMessage(command);
    const reply = await this.reply();
    assert.equal(reply.done, command['cmd']);
    return reply.active;
  }

  publish(type: string, worker: WorkerInfoInit): Promise<number> {
    return this.send({ cmd: 'publish', type, worker });
  }

  /** Live upstream subscriptions, once the port has had time to deliver what is in flight. */
  async active(): Promise<number> {
    await settle();
    return this.send({ cmd: 'active' });
  }

  async end(): Promise<void> {
    this.port.close();
    await this.thread.terminate();
  }
}

export const settle = (ms = 50): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export async function until(test: () => boolean, what: string, timeout = 5000): Promise<void> {
  const deadline = Date.now() + timeout;
  while (!test()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await settle(10);
  }
}

/** Records a subscription's notifications. */
export function record<T>(source: Observable<T>) {
  const seen = { values: [] as T[], error: undefined as unknown, completed: false };
  const subscription: Subscription = source.subscribe({
    next: (value) => seen.values.push(value),
    error: (error: unknown) => {
      seen.error = error;
    },
    complete: () => {
      seen.completed = true;
    },
  });
  return { seen, subscription };
}

/** Test workers: even ones are tagged gpu, odd ones cpu. */
export function init(n: number, extra: Record<string, string> = {}): WorkerInfoInit {
  return {
    uid: `0000000${n}-0000-4000-8000-000000000000`,
    address: `127.0.0.1:${9000 + n}`,
    pid: 100 + n,
    version: '1.0.0',
    tags: n % 2 === 0 ? ['gpu'] : ['cpu'],
    extra: { n: String(n), ...extra },
    options: { compression: 'gzip' },
  };
}
