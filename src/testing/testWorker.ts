import { workerInfo } from '../model/workerInfo.js';
import type { WorkerInfo, WorkerInfoInit } from '../model/types.js';

/**
 * A deterministic worker for tests: worker `n` has uid
 * `00000000-0000-4000-8000-<n as 12 hex digits>`, address
 * `127.0.0.1:<50000 + n>`, pid `1000 + n`, version `1.0.0`. Any field can be
 * overridden; the result is validated like any {@link workerInfo}.
 *
 * @example
 * const gpu = testWorker(1, { tags: ['gpu'] });
 * const moved = testWorker(1, { address: '127.0.0.1:6000' }); // same uid, new address
 *
 * @param n A number from 1 to 2^48 - 1 identifying the worker.
 * @param overrides Fields to replace.
 * @returns The worker.
 */
export function testWorker(n: number, overrides: Partial<WorkerInfoInit> = {}): WorkerInfo {
  if (!Number.isSafeInteger(n) || n < 1 || n >= 2 ** 48) {
    throw new TypeError(`Invalid test worker number: ${String(n)} (expected an integer from 1 to 2^48 - 1)`);
  }
  return workerInfo({
    uid: `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`,
    address: `127.0.0.1:${50_000 + (n % 15_000)}`,
    pid: 1000 + (n % 1_000_000),
    version: '1.0.0',
    ...overrides,
  });
}
