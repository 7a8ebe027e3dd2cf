import { randomUUID } from 'node:crypto';
import type { WorkerInfo } from '../../src/model/types.js';
import { workerInfo } from '../../src/model/workerInfo.js';

/**
 * The i-th worker a local bench publisher registers: every row registers
 * workers of this one shape (a fresh uid, a loopback address, this
 * process's pid, one tag), so that their records are the same size.
 * @param i Which worker (its port).
 * @returns The worker.
 */
export function benchWorker(i: number): WorkerInfo {
  return workerInfo({
    uid: randomUUID(),
    address: `127.0.0.1:${10_000 + (i % 50_000)}`,
    pid: process.pid,
    version: '1.0.0',
    tags: ['bench'],
  });
}
