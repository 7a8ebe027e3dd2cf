import { workerInfo } from '../model/workerInfo.js';
import type { WorkerInfo, WorkerInfoInit } from '../model/types.js';

/**
 * A deterministic worker for tests: worker `n` has uid
 * `<8 hex digits derived from n>-0000-4000-8000-<n as 12 hex digits>` (a
 * valid v4-shaped UUID whose first 8 characters — the short form failure
 * messages print — differ for every `n` below 2^32), address
 * `127.0.0.1:<50000 + n mod 15000>`, pid `1000 + n mod 1000000`, version
 * `1.0.0`. Any field can be overridden; the result is validated like any
 * {@link workerInfo}.
 *
 * @example
 * const gpu = testWorker(1, { tags: ['gpu'] }); // uid 9e3779b1-0000-4000-8000-000000000001
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
    uid: `${shortForm(n)}-0000-4000-8000-${n.toString(16).padStart(12, '0')}`,
    address: `127.0.0.1:${50_000 + (n % 15_000)}`,
    pid: 1000 + (n % 1_000_000),
    version: '1.0.0',
    ...overrides,
  });
}

/**
 * 8 hex digits that differ for every n below 2^32: n times an odd constant
 * (the golden ratio's, 0x9e3779b1) is a bijection modulo 2^32, and never 0
 * for n in range; the bits above 32 are mixed in for larger n.
 */
function shortForm(n: number): string {
  const low = n >>> 0;
  const high = Math.floor(n / 2 ** 32);
  const mixed = (Math.imul(low, 0x9e3779b1) ^ Math.imul(high, 0x85ebca6b)) >>> 0;
  return mixed.toString(16).padStart(8, '0');
}
