// The bridge's types: what exposeWorkers accepts (the Discovery, its watch()
// stream — once a TS2345 error — or a stream of events), and the read-only
// discovery discoveryFrom gives a renderer.
import type { Observable } from 'rxjs';
import { of } from 'rxjs';
import type { Subscription } from 'rxjs';
import type {
  Discovery,
  DiscoveryDiagnostic,
  DiscoveryEvent,
  DiscoveryItem,
  DiscoveryReader,
  WorkerSnapshot,
} from '../src/index.js';
import { discoveryFrom, exposeWorkers, workersFrom, type BridgePort } from '../src/bridge/index.js';
import { expectTrue, expectType, type Equal } from './expect.js';

declare const discovery: Discovery;
declare const port: BridgePort;

expectType<Subscription>()(exposeWorkers(discovery, port));
expectType<Subscription>()(exposeWorkers(discovery.watch(), port));
expectType<Subscription>()(
  exposeWorkers(
    discovery.watch((w) => w.tags.includes('gpu')),
    port,
    { channel: 'gpu' },
  ),
);
expectType<Subscription>()(exposeWorkers(discovery.events(), port));
// Another bridge's reader can be passed on.
expectType<Subscription>()(exposeWorkers(discoveryFrom(port), port));
// @ts-expect-error not worker events
exposeWorkers(of(1, 2), port);
// @ts-expect-error snapshots are not items
exposeWorkers(discovery.snapshots(), port);

const reader = discoveryFrom(port, { channel: 'gpu' });
expectType<DiscoveryReader>()(reader);
expectType<Observable<DiscoveryItem>>()(reader.watch((w) => w.tags.includes('gpu')));
expectType<Observable<DiscoveryEvent>>()(reader.events());
expectType<Observable<WorkerSnapshot>>()(reader.snapshots((w) => w.secure));
expectTrue<Equal<typeof reader.diagnostics, Observable<DiscoveryDiagnostic>>>();
// @ts-expect-error a renderer has no backend to publish to
void reader.publisher;
// @ts-expect-error nor a namespace of its own
void reader.namespace;
// Every Discovery is a reader: code that only watches takes either.
const asReader: DiscoveryReader = discovery;
void asReader;

expectType<Observable<DiscoveryEvent>>()(workersFrom(port));
