// Local helpers for the operator marble specs: small workers, events,
// snapshots and a TestScheduler that asserts with node:assert.
import assert from 'node:assert/strict';
import { TestScheduler } from 'rxjs/testing';
import { discoveryEvent } from '../src/events/discoveryEvent.js';
import type { DiscoveryEvent, WorkerSnapshot } from '../src/events/types.js';
import type { WorkerInfo, WorkerInfoInit } from '../src/model/types.js';
import { workerInfo } from '../src/model/workerInfo.js';

/** The uid of test worker `n`: a valid, recognisable UUID. */
export function uid(n: number): string {
  return `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
}

/** Test worker `n` (address `10.0.0.n:50051`, pid `n`, version `1.0.0`), with `overrides` laid over it. */
export function w(n: number, overrides: Partial<WorkerInfoInit> = {}): WorkerInfo {
  return workerInfo({
    uid: uid(n),
    address: `10.0.0.${n}:50051`,
    pid: n,
    version: '1.0.0',
    ...overrides,
  });
}

export const added = (worker: WorkerInfo): DiscoveryEvent => discoveryEvent('worker-added', worker);
export const updated = (worker: WorkerInfo): DiscoveryEvent => discoveryEvent('worker-updated', worker);
export const dropped = (worker: WorkerInfo): DiscoveryEvent => discoveryEvent('worker-dropped', worker);

/** A snapshot of `workers`, in that iteration order. */
export function snap(...workers: WorkerInfo[]): WorkerSnapshot {
  return new Map(workers.map((worker) => [worker.uid, worker]));
}

/** A TestScheduler whose frames are compared with `assert.deepStrictEqual`. */
export function testScheduler(): TestScheduler {
  return new TestScheduler((actual, expected) => assert.deepStrictEqual(actual, expected));
}
