// PredicatedQueue: a plain class whose take() returns a cold Observable.
import type { Observable } from 'rxjs';
import type { WorkerInfo } from '../src/index.js';
import { PredicatedQueue, predicatedTake } from '../src/index.js';
import { expectTrue, expectType, type Equal } from './expect.js';

declare const worker: WorkerInfo;
const pool = new PredicatedQueue<WorkerInfo>({ maxSize: 8 });

type GpuWorker = WorkerInfo & { readonly tags: readonly ['gpu', ...string[]] };
const isGpu = (w: WorkerInfo): w is GpuWorker => w.tags[0] === 'gpu';

expectType<Observable<WorkerInfo>>()(pool.take((w) => w.tags.length > 0));
expectType<Observable<GpuWorker>>()(pool.take(isGpu, Infinity));
// @ts-expect-error the predicate takes the queue's items
pool.take((item: string) => item === 'gpu');

expectTrue<Equal<ReturnType<typeof pool.tryPut>, boolean>>();
expectTrue<Equal<ReturnType<typeof pool.put>, Promise<void>>>();
void pool.put(worker, { signal: AbortSignal.timeout(1_000) });
// @ts-expect-error only WorkerInfo items go in
pool.tryPut('not a worker');
expectTrue<Equal<typeof pool.size, number>>();

// Not an Observable: it cannot be subscribed or piped directly; take from it with take().
expectTrue<Equal<'subscribe' extends keyof PredicatedQueue<WorkerInfo> ? true : false, false>>();
expectTrue<Equal<'pipe' extends keyof PredicatedQueue<WorkerInfo> ? true : false, false>>();
// @ts-expect-error a queue is not an Observable
predicatedTake(isGpu)(pool);
