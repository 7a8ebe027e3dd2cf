// The backend contract: Discovery and WorkerPublisher as a user sees them.
import type { Observable } from 'rxjs';
import type {
  Discovery,
  DiscoveryDiagnostic,
  DiscoveryEvent,
  DiscoveryItem,
  DiscoverySynced,
  WorkerInfo,
  WorkerPublisher,
} from '../src/index.js';
import { memoryDiscovery } from '../src/index.js';
import { expectTrue, expectType, type Equal } from './expect.js';

declare const discovery: Discovery;
declare const worker: WorkerInfo;

expectType<Observable<DiscoveryEvent>>()(discovery.events());
discovery.events((w) => w.tags.includes('gpu'));
// @ts-expect-error the filter takes a WorkerInfo
discovery.events((w: string) => w.length > 0);
// watch(): the events and one { type: 'synced' }, told apart by `type`.
expectType<Observable<DiscoveryItem>>()(discovery.watch((w) => w.tags.includes('gpu')));
declare const item: DiscoveryItem;
if (item.type === 'synced') expectTrue<Equal<typeof item, DiscoverySynced>>();
else expectTrue<Equal<typeof item, DiscoveryEvent>>();
expectTrue<Equal<typeof discovery.diagnostics, Observable<DiscoveryDiagnostic>>>();
expectTrue<Equal<typeof discovery.namespace, string>>();

const memory: Discovery = memoryDiscovery('type-tests');
void memory;

const publisher = discovery.publisher();
expectTrue<Equal<typeof publisher, WorkerPublisher>>();
expectTrue<Equal<ReturnType<WorkerPublisher['publish']>, Promise<void>>>();
void publisher.publish('worker-added', worker);
// @ts-expect-error not an event type
void publisher.publish('worker-moved', worker);
// @ts-expect-error a publisher publishes WorkerInfo, not a plain object
void publisher.publish('worker-added', { uid: 'x' });
// @ts-expect-error read-only
publisher.closed = true;

// A publisher is AsyncDisposable: `await using` withdraws what it published.
export async function publishBriefly(): Promise<void> {
  await using scoped = discovery.publisher();
  await scoped.publish('worker-added', worker);
}
