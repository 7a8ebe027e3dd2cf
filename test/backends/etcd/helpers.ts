// Shared helpers of the etcd backend tests: workers, waits, a recorder that
// checks every stream is consistent, and a raw etcd3 client.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { Etcd3, type IOptions } from 'etcd3';
import type { Observable, Subscription } from 'rxjs';
import type { DiscoveryDiagnostic } from '../../../src/discovery/types.js';
import type { DiscoveryEvent } from '../../../src/events/types.js';
import { sameWorker } from '../../../src/model/sameWorker.js';
import type { WorkerInfo, WorkerInfoInit } from '../../../src/model/types.js';
import { workerInfo } from '../../../src/model/workerInfo.js';

let namespaceCounter = 0;

/** A namespace no other test (or run) uses. */
export function uniqueNamespace(tag: string): string {
  namespaceCounter++;
  return `t-${tag}-${process.pid}-${namespaceCounter}-${randomUUID().slice(0, 6)}`;
}

/** A valid worker with a fresh uid. */
export function makeWorker(overrides: Partial<WorkerInfoInit> = {}): WorkerInfo {
  return workerInfo({
    uid: randomUUID(),
    address: `127.0.0.1:${10_000 + Math.floor(Math.random() * 50_000)}`,
    pid: process.pid,
    version: '1',
    ...overrides,
  });
}

/** Resolves once `condition()` is truthy; rejects naming `what` after `timeout` ms. */
export async function waitFor<T>(
  condition: () => T,
  what: string | (() => string),
  timeout = 10_000,
): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeout;
  for (;;) {
    const value = condition();
    if (value) return value;
    if (Date.now() > deadline) {
      throw new Error(`Timed out after ${timeout} ms waiting for ${typeof what === 'string' ? what : what()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** A raw etcd3 client for a test's own reads, writes, compactions. Close it. */
export function rawClient(endpoints: readonly string[], options: Partial<IOptions> = {}): Etcd3 {
  return new Etcd3({ hosts: [...endpoints], ...options });
}

/**
 * Subscribes and records events, diagnostics and the current worker set,
 * failing the test (at `assertConsistent`) on any event that contradicts the
 * ones before it: an add of a known worker, an update or drop of an unknown
 * one, an update that changes nothing.
 */
export class Recorder {
  readonly events: DiscoveryEvent[] = [];
  readonly workers = new Map<string, WorkerInfo>();
  readonly diagnostics: DiscoveryDiagnostic[] = [];
  readonly problems: string[] = [];
  readonly #subscriptions: Subscription[] = [];
  error: unknown;

  constructor(events: Observable<DiscoveryEvent>, diagnostics?: Observable<DiscoveryDiagnostic>) {
    if (diagnostics) this.#subscriptions.push(diagnostics.subscribe((d) => this.diagnostics.push(d)));
    this.#subscriptions.push(
      events.subscribe({
        next: (event) => this.#record(event),
        error: (error: unknown) => {
          this.error = error;
        },
      }),
    );
  }

  #record(event: DiscoveryEvent): void {
    this.events.push(event);
    const { uid } = event.worker;
    const known = this.workers.get(uid);
    switch (event.type) {
      case 'worker-added':
        if (known) this.problems.push(`added ${uid} again`);
        this.workers.set(uid, event.worker);
        break;
      case 'worker-updated':
        if (!known) this.problems.push(`updated unknown ${uid}`);
        else if (sameWorker(known, event.worker)) this.problems.push(`updated ${uid} without a change`);
        this.workers.set(uid, event.worker);
        break;
      case 'worker-dropped':
        if (!known) this.problems.push(`dropped unknown ${uid}`);
        this.workers.delete(uid);
        break;
    }
  }

  /** Events of one worker, as `type@version`. */
  history(uid: string): string[] {
    return this.events
      .filter((event) => event.worker.uid === uid)
      .map((event) => `${event.type}@${event.worker.version}`);
  }

  /** Fails if an event contradicted the stream so far. */
  assertConsistent(): void {
    assert.deepEqual(this.problems, [], 'inconsistent event stream');
    assert.equal(this.error, undefined, 'the stream errored');
  }

  /** Whether the recorded set is exactly `expected` (same uids, same metadata). */
  matches(expected: ReadonlyMap<string, WorkerInfo>): boolean {
    if (expected.size !== this.workers.size) return false;
    for (const [uid, worker] of expected) {
      const got = this.workers.get(uid);
      if (!got || !sameWorker(got, worker)) return false;
    }
    return true;
  }

  unsubscribe(): void {
    for (const subscription of this.#subscriptions) subscription.unsubscribe();
  }
}
