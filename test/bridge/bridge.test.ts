import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { MessageChannel } from 'node:worker_threads';
import { firstValueFrom, Subject, take, toArray } from 'rxjs';
import { BridgeClosedError, exposeWorkers, workersFrom } from '../../src/bridge/index.js';
import type { BridgeMessage, BridgePort } from '../../src/bridge/index.js';
import { discoveryEvent } from '../../src/events/discoveryEvent.js';
import type { DiscoveryEvent } from '../../src/events/types.js';
import { workerInfo } from '../../src/model/workerInfo.js';
import { init, Owner, record as recordValues, settle, until } from './ownerThread.js';

/** Records a subscription's events. */
function record(source: ReturnType<typeof workersFrom>) {
  const { seen, subscription } = recordValues(source);
  return { seen: Object.assign(seen, { events: seen.values }), subscription };
}

const owners: Owner[] = [];
function owner(): Owner {
  const created = new Owner();
  owners.push(created);
  return created;
}
after(async () => {
  for (const created of owners) await created.end();
});

describe('bridge across worker_threads (real MessageChannel, owner in a Worker)', () => {
  it('is cold, serves several independent subscriptions over one port, and releases the upstream on unsubscribe', async () => {
    const side = owner();
    await side.ready();
    await side.publish('worker-added', init(1));
    await side.publish('worker-added', init(2));
    const workers$ = workersFrom(side.port);
    assert.equal(await side.active(), 0, 'nothing subscribed before subscribe');

    const a = record(workers$);
    const b = record(workers$);
    await until(() => a.seen.events.length === 2 && b.seen.events.length === 2, 'the current workers');
    assert.equal(await side.active(), 2, 'one upstream subscription per subscribe');
    const expected = [
      discoveryEvent('worker-added', workerInfo(init(1))),
      discoveryEvent('worker-added', workerInfo(init(2))),
    ];
    assert.deepEqual(a.seen.events, expected);
    assert.deepEqual(b.seen.events, expected);
    // Rebuilt as validated, frozen values on this side.
    assert.ok(Object.isFrozen(a.seen.events[0]) && Object.isFrozen(a.seen.events[0]?.worker.tags));
    assert.equal(a.seen.events[0]?.worker.options.compression, 'gzip');

    a.subscription.unsubscribe();
    assert.equal(await side.active(), 1, 'unsubscribe released its upstream');
    await side.publish('worker-updated', init(2, { load: 'high' }));
    await side.publish('worker-dropped', init(1));
    await until(() => b.seen.events.length === 4, 'the update and the drop');
    assert.equal(a.seen.events.length, 2, 'nothing after unsubscribe');
    assert.deepEqual(b.seen.events.slice(2), [
      discoveryEvent('worker-updated', workerInfo(init(2, { load: 'high' }))),
      // The drop's reason crosses the port with it.
      discoveryEvent('worker-dropped', workerInfo(init(1)), 'withdrawn'),
    ]);

    // A late subscriber gets its own upstream and the current state.
    const c = record(workers$);
    await until(() => c.seen.events.length === 1, 'the late subscriber');
    assert.equal(c.seen.events[0]?.worker.uid, init(2).uid);
    assert.equal(await side.active(), 2);
    b.subscription.unsubscribe();
    c.subscription.unsubscribe();
    assert.equal(await side.active(), 0);
    for (const { seen } of [a, b, c]) assert.equal(seen.error, undefined);
  });

  it('an upstream error crosses as an Error with name, message and code; completion crosses as completion', async () => {
    const side = owner();
    await side.ready();
    await side.publish('worker-added', init(1));
    const failing = record(workersFrom(side.port));
    await until(() => failing.seen.events.length === 1, 'the first event');
    await side.send({ cmd: 'fail' });
    await until(() => failing.seen.error !== undefined, 'the error');
    const error = failing.seen.error as Error & { code?: string };
    assert.ok(error instanceof Error);
    assert.equal(error.name, 'WoolrxError');
    assert.equal(error.message, 'the source failed');
    assert.equal(error.code, 'WOOLRX_TEST_FAILURE');
    assert.equal(failing.subscription.closed, true);
    assert.equal(await side.active(), 0);

    const side2 = owner();
    await side2.ready();
    const completing = record(workersFrom(side2.port));
    assert.equal(await side2.active(), 1);
    await side2.send({ cmd: 'complete' });
    await until(() => completing.seen.completed, 'the completion');
    assert.equal(completing.seen.error, undefined);
    assert.equal(await side2.active(), 0);
  });

  it('a closed port ends live subscriptions with BridgeClosedError, and new ones at once', async () => {
    const side = owner();
    await side.ready();
    const workers$ = workersFrom(side.port);
    const live = record(workers$);
    assert.equal(await side.active(), 1);
    await side.send({ cmd: 'close' });
    await until(() => live.seen.error !== undefined, 'the closing');
    assert.ok(live.seen.error instanceof BridgeClosedError);
    assert.equal(live.seen.error.code, 'WOOLRX_BRIDGE_CLOSED');
    assert.equal(await side.active(), 0, 'the owner released its upstream when the port closed');
    await assert.rejects(firstValueFrom(workers$), BridgeClosedError);
  });

  it('when the owner stops exposing, subscriptions error with BridgeClosedError and upstreams are released', async () => {
    const side = owner();
    await side.ready();
    const live = record(workersFrom(side.port));
    assert.equal(await side.active(), 1);
    assert.equal(await side.send({ cmd: 'stop' }), 0);
    await until(() => live.seen.error !== undefined, 'the error');
    assert.equal((live.seen.error as Error).name, 'BridgeClosedError');
    assert.equal((live.seen.error as Error & { code?: string }).code, 'WOOLRX_BRIDGE_CLOSED');
    assert.match((live.seen.error as Error).message, /stopped exposing/);
  });
});

describe('bridge in one process', () => {
  it('rejects what is not a port, a source or a channel, naming it', () => {
    const { port1 } = new MessageChannel();
    assert.throws(() => workersFrom({} as BridgePort), /Invalid workersFrom port: /);
    assert.throws(() => workersFrom(null as unknown as BridgePort), TypeError);
    assert.throws(() => exposeWorkers(42 as never, port1), /Invalid exposeWorkers source: 42/);
    assert.throws(() => workersFrom(port1, { channel: '' }), /Invalid workersFrom channel: ""/);
    port1.close();
  });

  it('posts only structured-clone safe plain data, and the protocol is subscribe / next / release', () => {
    const posted: unknown[] = [];
    const listeners: ((event: { data: unknown }) => void)[] = [];
    // A DOM-style port (addEventListener, event.data) wired back to itself through structuredClone.
    const loopback: BridgePort = {
      postMessage: (message) => {
        const copy = structuredClone(message);
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
    const source = new Subject<DiscoveryEvent>();
    const exposure = exposeWorkers(source, loopback, { channel: 'c1' });
    const seen: DiscoveryEvent[] = [];
    const subscription = workersFrom(loopback, { channel: 'c1' }).subscribe((event) => seen.push(event));
    const event = discoveryEvent('worker-added', workerInfo(init(3)));
    source.next(event);
    subscription.unsubscribe();
    source.next(event);
    assert.deepEqual(seen, [event]);
    const kinds = (posted as BridgeMessage[]).map((message) => [message.woolrxBridge, message.kind]);
    assert.deepEqual(kinds, [
      ['c1', 'subscribe'],
      ['c1', 'next'],
      ['c1', 'release'],
    ]);
    const next = posted[1] as Extract<BridgeMessage, { kind: 'next' }>;
    assert.equal(Object.getPrototypeOf(next.worker), Object.prototype);
    assert.deepEqual(next.worker.tags, ['cpu']);
    assert.equal(listeners.length, 1, 'the receiving side stops listening when it has no subscription');
    exposure.unsubscribe();
    assert.equal(listeners.length, 0);
  });

  it('channels on one port do not see each other; an onmessage-only port works', async () => {
    const { port1, port2 } = new MessageChannel();
    // port2 through its onmessage property only (like a bare DOM port or a WebSocket adapter).
    const onmessageOnly: BridgePort & { onmessage: ((event: never) => void) | null } = {
      postMessage: (message) => port2.postMessage(message),
      onmessage: null,
    };
    port2.on('message', (data: unknown) =>
      (onmessageOnly.onmessage as ((event: { data: unknown }) => void) | null)?.({ data }),
    );
    const one = new Subject<DiscoveryEvent>();
    const two = new Subject<DiscoveryEvent>();
    const exposures = [exposeWorkers(one, port1, { channel: 'one' }), exposeWorkers(two, port1, { channel: 'two' })];
    const fromTwo = firstValueFrom(workersFrom(onmessageOnly, { channel: 'two' }).pipe(take(2), toArray()));
    await settle();
    assert.equal(one.observed, false);
    assert.equal(two.observed, true);
    const a = discoveryEvent('worker-added', workerInfo(init(4)));
    const d = discoveryEvent('worker-dropped', workerInfo(init(4)));
    two.next(a);
    two.next(d);
    assert.deepEqual(await fromTwo, [a, d]);
    await settle();
    assert.equal(two.observed, false, 'take(2) released the upstream');
    assert.equal(onmessageOnly.onmessage, null, 'the listener is removed when the last subscription ends');
    for (const exposure of exposures) exposure.unsubscribe();
    port1.close();
  });

  it('a malformed event from the other side errors that subscription with a TypeError and releases it', async () => {
    const { port1, port2 } = new MessageChannel();
    const requests: BridgeMessage[] = [];
    port1.on('message', (message: BridgeMessage) => {
      requests.push(message);
      if (message.kind === 'subscribe') {
        port1.postMessage({
          woolrxBridge: 'woolrx',
          kind: 'next',
          id: message.id,
          type: 'worker-added',
          worker: { uid: 'nope' },
        });
      }
    });
    await assert.rejects(firstValueFrom(workersFrom(port2)), TypeError);
    await settle();
    assert.deepEqual(
      requests.map((message) => message.kind),
      ['subscribe', 'release'],
    );
    port1.close();
  });
});
