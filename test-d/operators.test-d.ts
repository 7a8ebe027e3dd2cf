// The operators' types: predicate narrowing, and what each one emits.
import type { Observable } from 'rxjs';
import type { DiscoveryEvent, WorkerInfo, WorkerSnapshot } from '../src/index.js';
import {
  diffSnapshots,
  expireWorkers,
  filterWorkers,
  predicatedTake,
  shareWorkers,
  toSnapshots,
} from '../src/index.js';
import { expectType } from './expect.js';

declare const events$: Observable<DiscoveryEvent>;
declare const snapshots$: Observable<WorkerSnapshot>;
declare const workers$: Observable<WorkerInfo>;
declare const mixed$: Observable<string | number>;

// predicatedTake: a type guard narrows the result; a boolean predicate keeps the type.
type SecureWorker = WorkerInfo & { readonly secure: true };
const isSecure = (worker: WorkerInfo): worker is SecureWorker => worker.secure;
expectType<Observable<SecureWorker>>()(workers$.pipe(predicatedTake(isSecure, 2)));
expectType<Observable<WorkerInfo>>()(workers$.pipe(predicatedTake((worker) => worker.tags.includes('gpu'))));
expectType<Observable<string>>()(mixed$.pipe(predicatedTake((item): item is string => typeof item === 'string')));
// @ts-expect-error the guard's type is the result's type, not the source's
expectType<Observable<string | number>>()(
  mixed$.pipe(predicatedTake((item): item is string => typeof item === 'string')),
);
// @ts-expect-error the predicate must be a function
predicatedTake('gpu');
// @ts-expect-error the count is a number
predicatedTake(isSecure, '2');

// filterWorkers: the predicate is typed as taking a WorkerInfo (contextual
// typing), a type guard is accepted, and the result is still worker events.
expectType<Observable<DiscoveryEvent>>()(events$.pipe(filterWorkers((worker) => worker.tags.includes('gpu'))));
events$.pipe(filterWorkers(isSecure));
// @ts-expect-error a WorkerInfo has no such field
events$.pipe(filterWorkers((worker) => worker.gpu === true));
// @ts-expect-error the predicate takes a worker, not an event
events$.pipe(filterWorkers((event: DiscoveryEvent) => event.type === 'worker-added'));
// @ts-expect-error filterWorkers applies to worker events only
workers$.pipe(filterWorkers(() => true));

// The snapshot pair and the others.
expectType<Observable<DiscoveryEvent>>()(snapshots$.pipe(diffSnapshots()));
expectType<Observable<WorkerSnapshot>>()(events$.pipe(toSnapshots()));
// @ts-expect-error diffSnapshots takes snapshots, not events
events$.pipe(diffSnapshots());
expectType<Observable<DiscoveryEvent>>()(events$.pipe(expireWorkers(30_000)));
expectType<Observable<DiscoveryEvent>>()(events$.pipe(shareWorkers({ gracePeriod: 1_000 })));
// @ts-expect-error no such option
events$.pipe(shareWorkers({ grace: 1_000 }));
