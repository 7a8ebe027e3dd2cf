// leaseWorkers' types: what it accepts, what a lease is.
import type { Observable } from 'rxjs';
import { of } from 'rxjs';
import type { Discovery, WorkerInfo, WorkerLease, WorkerLeases } from '../src/index.js';
import { leaseWorkers } from '../src/index.js';
import { expectTrue, expectType, type Equal } from './expect.js';

declare const discovery: Discovery;

const pool = leaseWorkers(discovery.events());
expectType<WorkerLeases>()(pool);
expectType<WorkerLeases>()(leaseWorkers(discovery.watch()));
// @ts-expect-error not worker events
leaseWorkers(of(1));

void expectType<Promise<WorkerLease>>()(pool.acquire());
void expectType<Promise<WorkerLease>>()(
  pool.acquire((w) => w.tags.includes('gpu'), { signal: AbortSignal.timeout(1000) }),
);
// @ts-expect-error the predicate takes a WorkerInfo
void pool.acquire((w: string) => w.length > 0);
expectType<Observable<WorkerLease>>()(pool.lease());
expectTrue<Equal<typeof pool.available, readonly WorkerInfo[]>>();

export async function useOne(): Promise<void> {
  using scoped = leaseWorkers(discovery.events());
  using lease = await scoped.acquire();
  expectTrue<Equal<typeof lease.worker, WorkerInfo>>();
  expectTrue<Equal<typeof lease.lost, AbortSignal>>();
  const other: WorkerInfo = lease.worker;
  // @ts-expect-error read-only
  lease.worker = other;
}
