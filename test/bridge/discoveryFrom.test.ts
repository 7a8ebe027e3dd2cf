import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { MessageChannel } from 'node:worker_threads';
import { firstValueFrom, Observable, Subject, toArray } from 'rxjs';
import { BridgeClosedError, discoveryFrom, exposeWorkers, workersFrom } from '../../src/bridge/index.js';
import type { BridgeMessage, BridgePort } from '../../src/bridge/index.js';
import type { DiscoveryReader } from '../../src/discovery/types.js';
import { discoveryEvent, SYNCED } from '../../src/events/discoveryEvent.js';
import type { DiscoveryItem, WorkerSnapshot } from '../../src/events/types.js';
import { workerInfo } from '../../src/model/workerInfo.js';
import type { WorkerInfo } from '../../src/model/types.js';
import { init, Owner, record, settle, until } from './ownerThread.js';

const gpu = (worker: WorkerInfo): boolean => worker.tags.includes('gpu');
const uid = (n: number): string => init(n).uid;
const keys = (snapshot: WorkerSnapshot | undefined): string[] => [...(snapshot?.keys() ?? [])].sort();
const added = (n: number, extra: Record<string, string> = {}) =>
  discoveryEvent('worker-added', workerInfo(init(n, extra)));

const owners: Owner[] = [];
function owner(expose: 'events' | 'discovery' | 'watch' = 'discovery', fixture?: URL): Owner {
  const created = fixture === undefined ? new Owner(expose) : new Owner(expose, fixture);
  owners.push(created);
  return created;
}
after(async () => {
  for (const created of owners) await created.end();
});

/** A DOM-style port wired back to itself through structuredClone, recording what crosses. */
function loopback(): { port: BridgePort; posted: BridgeMessage[]; listeners: unknown[] } {
  const posted: BridgeMessage[] = [];
  const listeners: ((event: { data: unknown }) => void)[] = [];
  const port: BridgePort = {
    postMessage: (message) => {
      const copy = structuredClone(message) as BridgeMessage;
      posted.push(copy);
      for (const listener of [...listeners]) listener({ data: copy });
    },
    addEventListener: (type: string, listener: (event: { data: unknown }) => void) => {
      if (type === 'message') listeners.push(listener);
    },
    removeEventListener: (type: string, listener: (event: { data: unknown }) => void) => {
      const index = listeners.indexOf(listener);
      if (type === 'message' && index >= 0) listeners.splice(index, 1);
    },
  };
  return { port, posted, listeners };
}

describe('discoveryFrom across worker_threads (the owner exposes a memory Discovery in a Worker)', () => {
  it('snapshots(filter): nothing while loading, then the complete initial state at once — both GPU workers — then each change', async () => {
    const side = owner();
    await side.ready();
    await side.publish('worker-added', init(1));
    await side.publish('worker-added', init(2));
    await side.publish('worker-added', init(4));
    const snapshots = record(discoveryFrom(side.port).snapshots(gpu));
    assert.equal(snapshots.seen.values.length, 0, 'loading: nothing before the owner says synced');
    await until(() => snapshots.seen.values.length === 1, 'the first snapshot');
    assert.deepEqual(keys(snapshots.seen.values[0]), [uid(2), uid(4)], 'the first snapshot holds both GPU workers');
    await settle();
    assert.equal(snapshots.seen.values.length, 1, 'one snapshot for the initial state');
    await side.publish('worker-added', init(6));
    await until(() => snapshots.seen.values.length === 2, 'the change');
    assert.deepEqual(keys(snapshots.seen.values[1]), [uid(2), uid(4), uid(6)]);
    await side.publish('worker-added', init(3));
    await side.publish('worker-dropped', init(2));
    await until(() => snapshots.seen.values.length === 3, 'the drop');
    assert.deepEqual(keys(snapshots.seen.values[2]), [uid(4), uid(6)], 'the CPU worker never shows');
    assert.equal(snapshots.seen.values[2]?.get(uid(4))?.options.compression, 'gzip');
    snapshots.subscription.unsubscribe();
    assert.equal(await side.active(), 0);
    assert.equal(snapshots.seen.error, undefined);
  });

  it('an empty pool, or one where nothing passes the filter, gives an empty first snapshot', async () => {
    const side = owner();
    await side.ready();
    const reader = discoveryFrom(side.port);
    const empty = await firstValueFrom(reader.snapshots());
    assert.equal(empty.size, 0);
    await side.publish('worker-added', init(1));
    const none = await firstValueFrom(reader.snapshots(gpu));
    assert.equal(none.size, 0, 'the CPU worker does not pass: still a first snapshot, empty');
    assert.deepEqual(keys(await firstValueFrom(reader.snapshots())), [uid(1)]);
    assert.equal(await side.active(), 0, 'firstValueFrom released each upstream');
  });

  it('watch(filter) keeps synced and gives filterWorkers in/out transitions; events(filter) is the same without synced', async () => {
    const side = owner();
    await side.ready();
    await side.publish('worker-added', init(1));
    await side.publish('worker-added', init(2));
    const reader = discoveryFrom(side.port);
    const all = record(reader.watch());
    const gpus = record(reader.watch(gpu));
    const gpuEvents = record(reader.events(gpu));
    // The events-only receiver on the same exposure: the owner serves it discovery.events().
    const legacy = record(workersFrom(side.port));
    await until(
      () =>
        gpus.seen.values.length === 2 &&
        all.seen.values.length === 3 &&
        gpuEvents.seen.values.length === 1 &&
        legacy.seen.values.length === 2,
      'the initial state',
    );
    assert.deepEqual(all.seen.values, [added(1), added(2), SYNCED]);
    assert.deepEqual(legacy.seen.values, [added(1), added(2)]);
    assert.equal(await side.active(), 4);
    legacy.subscription.unsubscribe();
    assert.deepEqual(gpus.seen.values, [added(2), SYNCED]);
    // 1 starts passing (added), 2 stops passing (dropped with its last GPU metadata), then 1 goes.
    await side.publish('worker-updated', { ...init(1), tags: ['gpu'] });
    await side.publish('worker-updated', { ...init(2), tags: ['cpu'] });
    await side.publish('worker-dropped', init(1));
    const expected: DiscoveryItem[] = [
      discoveryEvent('worker-added', workerInfo({ ...init(1), tags: ['gpu'] })),
      discoveryEvent('worker-dropped', workerInfo(init(2))),
      discoveryEvent('worker-dropped', workerInfo({ ...init(1), tags: ['gpu'] }), 'withdrawn'),
    ];
    await until(() => gpus.seen.values.length === 5 && gpuEvents.seen.values.length === 4, 'the transitions');
    assert.deepEqual(gpus.seen.values.slice(2), expected);
    assert.deepEqual(gpuEvents.seen.values, [added(2), ...expected]);
    assert.equal(await side.active(), 3, 'one owner watch per subscription, filters run on this side');
    for (const { subscription } of [all, gpus, gpuEvents]) subscription.unsubscribe();
    assert.equal(await side.active(), 0);
  });

  it('diagnostics cross with their error as an Error with name, message and code', async () => {
    const side = owner();
    await side.ready();
    const diagnostics = record(discoveryFrom(side.port).diagnostics);
    await settle();
    await side.send({ cmd: 'diagnose' });
    await until(() => diagnostics.seen.values.length === 1, 'the diagnostic');
    const [diagnostic] = diagnostics.seen.values;
    assert.equal(diagnostic?.kind, 'warning');
    assert.equal(diagnostic?.namespace, 'bridge');
    assert.equal(diagnostic?.message, 'the lock was slow');
    assert.equal(diagnostic?.uid, uid(1));
    const error = diagnostic?.error as Error & { code?: string };
    assert.ok(error instanceof Error);
    assert.equal(error.name, 'WoolrxError');
    assert.equal(error.code, 'WOOLRX_LOCK_TIMEOUT');
    assert.ok(Object.isFrozen(diagnostic));
    diagnostics.subscription.unsubscribe();
  });

  it('an upstream error reaches every stream with its code; a closed port ends them with BridgeClosedError', async () => {
    const side = owner();
    await side.ready();
    const reader = discoveryFrom(side.port);
    const snapshots = record(reader.snapshots());
    const watch = record(reader.watch(gpu));
    await until(() => snapshots.seen.values.length === 1 && watch.seen.values.length === 1, 'synced');
    await side.send({ cmd: 'fail' });
    await until(() => snapshots.seen.error !== undefined && watch.seen.error !== undefined, 'the errors');
    for (const { error } of [snapshots.seen, watch.seen]) {
      assert.equal((error as Error & { code?: string }).code, 'WOOLRX_TEST_FAILURE');
    }

    const side2 = owner();
    await side2.ready();
    const live = record(discoveryFrom(side2.port).snapshots());
    await until(() => live.seen.values.length === 1, 'the first snapshot');
    await side2.send({ cmd: 'close' });
    await until(() => live.seen.error !== undefined, 'the closing');
    assert.ok(live.seen.error instanceof BridgeClosedError);
    assert.equal(await side2.active(), 0);
  });

  it('the owner may expose discovery.watch() itself: synced crosses to discoveryFrom, workersFrom gets the events only', async () => {
    const side = owner('watch');
    await side.ready();
    await side.publish('worker-added', init(2));
    const watch = record(discoveryFrom(side.port).watch());
    const events = record(workersFrom(side.port));
    await until(() => watch.seen.values.length === 2 && events.seen.values.length === 1, 'the initial state');
    assert.deepEqual(watch.seen.values, [added(2), SYNCED]);
    assert.deepEqual(events.seen.values, [added(2)]);
    await side.publish('worker-added', init(4));
    await until(() => events.seen.values.length === 2, 'the change');
    assert.deepEqual(watch.seen.values.slice(2), [added(4)]);
    assert.equal(side.crash, undefined);
    watch.subscription.unsubscribe();
    events.subscription.unsubscribe();
  });

  it('an owner exposing a stream of events alone serves events(), but its watch() has no synced to give', async () => {
    const side = owner('events');
    await side.ready();
    await side.publish('worker-added', init(2));
    const reader = discoveryFrom(side.port);
    const events = record(reader.events());
    const watch = record(reader.watch());
    await until(() => events.seen.values.length === 1 && watch.seen.values.length === 1, 'the events');
    await settle(100);
    assert.deepEqual(watch.seen.values, [added(2)], 'no synced: pass the Discovery to exposeWorkers');
    events.subscription.unsubscribe();
    watch.subscription.unsubscribe();
  });
});

describe('exposeWorkers never crashes the owning process (plain JavaScript owner in a Worker)', () => {
  it('serves discovery.watch() to workersFrom (no crash on synced) and turns garbage into a TypeError on that stream', async () => {
    const side = owner('events', new URL('./fixtures/plainOwner.mjs', import.meta.url));
    await side.ready();
    // As the user subscribed: the events-only receiver on a watch() exposure.
    const events = record(workersFrom(side.port));
    const watch = record(discoveryFrom(side.port).watch());
    await until(
      () => side.crash !== undefined || (events.seen.values.length === 1 && watch.seen.values.length === 2),
      'the worker and synced',
    );
    assert.equal(side.crash, undefined, 'the owning thread did not crash on synced');
    assert.deepEqual(
      watch.seen.values.map((item) => item.type),
      ['worker-added', 'synced'],
    );

    const garbage: [unknown, RegExp][] = [
      [undefined, /the source emitted undefined, not a worker event or \{ type: 'synced' \}/],
      [42, /the source emitted 42, not a worker event/],
      [{ type: 'worker-added' }, /a worker-added event with an invalid worker: .*undefined/],
      [{ type: 'worker-moved', worker: init(1) }, /the source emitted .*worker-moved/],
      [{ type: 'worker-added', worker: { ...init(1), pid: 'one' } }, /invalid worker: .*pid/],
    ];
    for (const [value, message] of garbage) {
      const junk = record(workersFrom(side.port, { channel: 'junk' }));
      assert.equal(await side.active(), 1, 'subscribed upstream');
      assert.equal(await side.send({ cmd: 'junk', value }), 0, 'the bad item released its upstream');
      await until(() => junk.seen.error !== undefined, 'the error');
      assert.ok(junk.seen.error instanceof Error);
      assert.equal(junk.seen.error.name, 'TypeError');
      assert.match(junk.seen.error.message, message);
    }
    // Still alive and serving.
    assert.equal(side.crash, undefined, 'the owning thread did not crash');
    assert.equal(events.seen.error, undefined);
    assert.equal(watch.seen.error, undefined);
    const late = await firstValueFrom(discoveryFrom(side.port).snapshots());
    assert.deepEqual(keys(late), [uid(2)]);
    events.subscription.unsubscribe();
    watch.subscription.unsubscribe();
  });
});

describe('discoveryFrom in one process', () => {
  it('rejects what is not a port or a channel, and a filter that is not a function, naming them', () => {
    assert.throws(() => discoveryFrom({} as BridgePort), /Invalid discoveryFrom port: /);
    const { port1 } = new MessageChannel();
    assert.throws(() => discoveryFrom(port1, { channel: '' }), /Invalid discoveryFrom channel: ""/);
    const reader = discoveryFrom(port1);
    assert.throws(() => reader.watch('gpu' as never), /filter must be a function, got "gpu"/);
    assert.throws(() => reader.snapshots(1 as never), TypeError);
    assert.throws(
      () => exposeWorkers({ watch: 1 } as never, port1),
      /Invalid exposeWorkers source: .*expected a Discovery/,
    );
    port1.close();
  });

  it('is read-only: a DiscoveryReader, no publisher', () => {
    const { port } = loopback();
    const reader: DiscoveryReader = discoveryFrom(port);
    assert.deepEqual(Object.keys(reader).sort(), ['diagnostics', 'events', 'snapshots', 'watch']);
    assert.ok(Object.isFrozen(reader));
  });

  it('asks for the watch stream, and the protocol is subscribe(watch) / next / synced / release', () => {
    const { port, posted, listeners } = loopback();
    const source = new Subject<DiscoveryItem>();
    const exposure = exposeWorkers(source, port);
    const seen: DiscoveryItem[] = [];
    const subscription = discoveryFrom(port)
      .watch()
      .subscribe((item) => seen.push(item));
    source.next(added(2));
    source.next(SYNCED);
    subscription.unsubscribe();
    assert.deepEqual(seen, [added(2), SYNCED]);
    assert.deepEqual(
      posted.map((message) => [message.kind, message.kind === 'subscribe' ? message.stream : undefined]),
      [
        ['subscribe', 'watch'],
        ['next', undefined],
        ['synced', undefined],
        ['release', undefined],
      ],
    );
    assert.equal(source.observed, false);
    assert.equal(listeners.length, 1, 'only the owner listens once nothing is subscribed');
    exposure.unsubscribe();
  });

  it('a malformed item or diagnostic from the other side errors that subscription with a TypeError and releases it', async () => {
    const { port1, port2 } = new MessageChannel();
    const requests: BridgeMessage[] = [];
    port1.on('message', (message: BridgeMessage) => {
      requests.push(message);
      if (message.kind !== 'subscribe') return;
      const reply =
        message.stream === 'diagnostics'
          ? { kind: 'diagnostic', diagnostic: { kind: 'gossip', namespace: 'n', message: 'm' } }
          : { kind: 'next', type: 'worker-added', worker: { ...init(1), pid: -5 } };
      port1.postMessage({ woolrxBridge: 'woolrx', id: message.id, ...reply });
    });
    const reader = discoveryFrom(port2);
    await assert.rejects(
      firstValueFrom(reader.snapshots()),
      (error: Error) => error instanceof TypeError && /pid/.test(error.message),
    );
    await assert.rejects(firstValueFrom(reader.diagnostics), /Invalid diagnostic from the bridge: .*gossip/);
    await settle();
    assert.deepEqual(
      requests.map((message) => message.kind),
      ['subscribe', 'release', 'subscribe', 'release'],
    );
    port1.close();
  });

  it('a source whose watch() throws, or an unknown stream requested, errors that request only', async () => {
    const { port1, port2 } = new MessageChannel();
    const broken = {
      events: () => new Observable<never>(),
      watch: (): never => {
        throw new Error('no watch today');
      },
      snapshots: () => new Observable<never>(),
      diagnostics: new Observable<never>(),
    } as unknown as DiscoveryReader;
    const exposure = exposeWorkers(broken, port1);
    await assert.rejects(firstValueFrom(discoveryFrom(port2).watch()), /no watch today/);
    const replies: BridgeMessage[] = [];
    port2.on('message', (message: BridgeMessage) => replies.push(message));
    port2.postMessage({ woolrxBridge: 'woolrx', kind: 'subscribe', id: 'x', stream: 'gossip' });
    await until(() => replies.length === 1, 'the reply');
    assert.equal(replies[0]?.kind, 'error');
    assert.match(JSON.stringify(replies[0]), /unknown stream \\"gossip\\"/);
    exposure.unsubscribe();
    port1.close();
  });

  it('chains: a DiscoveryReader from one bridge can be exposed on another', async () => {
    const first = loopback();
    const second = loopback();
    const source = new Subject<DiscoveryItem>();
    const exposures = [exposeWorkers(source, first.port), exposeWorkers(discoveryFrom(first.port), second.port)];
    const items = firstValueFrom(discoveryFrom(second.port).watch(gpu).pipe(toArray()));
    source.next(added(1));
    source.next(added(2));
    source.next(SYNCED);
    source.complete();
    assert.deepEqual(await items, [added(2), SYNCED]);
    for (const exposure of exposures) exposure.unsubscribe();
  });
});
