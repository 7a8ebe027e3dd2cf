// relayWorkers in virtual time: what the relay writes to its target (every
// publish call, recorded as the event it asks for), the items it emits, and
// when it subscribes to and unsubscribes from its source. The target is a
// real memoryDiscovery whose publisher is wrapped only to record the calls;
// what the relay leaves in the target once its promises have settled (after
// the virtual run) is checked on the memoryDiscovery itself.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { filter, firstValueFrom, lastValueFrom, Observable, Subject, toArray } from 'rxjs';
import { memoryDiscovery } from '../src/backends/memory/memoryDiscovery.js';
import { MemoryRegistry } from '../src/backends/memory/MemoryRegistry.js';
import type { Discovery, WorkerPublisher } from '../src/discovery/types.js';
import type { DiscoveryEvent, DiscoveryEventType, WorkerSnapshot } from '../src/events/types.js';
import type { WorkerInfo } from '../src/model/types.js';
import { workerInfo } from '../src/model/workerInfo.js';
import { RELAY_MARK } from '../src/relay/RELAY_MARK.js';
import { relayWorkers } from '../src/relay/relayWorkers.js';
import type { RelayOptions, RelayStatus } from '../src/relay/types.js';
import { added, dropped, testWorker, updated, workerTestScheduler } from '../src/testing/index.js';

const ID = 'relay-a';
const HOST = '10.0.0.7';

/** A worker as the relay writes it: the relay mark set, a loopback host replaced by HOST. */
function relayed(worker: WorkerInfo, id = ID): WorkerInfo {
  const [host, port] = [
    worker.address.slice(0, worker.address.lastIndexOf(':')),
    worker.address.slice(worker.address.lastIndexOf(':') + 1),
  ];
  const address = host === '127.0.0.1' || host === '0.0.0.0' ? `${HOST}:${port}` : worker.address;
  return workerInfo({ ...worker, address, extra: { ...worker.extra, [RELAY_MARK]: id } });
}

/** A memory target whose publishers report every publish call on `calls`. */
function recordingTarget(): { target: Discovery; calls: Subject<DiscoveryEvent>; memory: Discovery } {
  const memory = memoryDiscovery('target', { registry: new MemoryRegistry() });
  const calls = new Subject<DiscoveryEvent>();
  const target: Discovery = Object.freeze({
    ...memory,
    publisher: (): WorkerPublisher => {
      const inner = memory.publisher();
      return {
        get namespace() {
          return inner.namespace;
        },
        get closed() {
          return inner.closed;
        },
        publish: (type: DiscoveryEventType, worker: WorkerInfo) => {
          calls.next({ type, worker });
          return inner.publish(type, worker);
        },
        close: () => inner.close(),
        [Symbol.asyncDispose]: () => inner.close(),
      };
    },
  });
  return { target, calls, memory };
}

/** The target's workers once everything pending has settled. */
async function settledContents(memory: Discovery): Promise<WorkerSnapshot> {
  await new Promise((resolve) => setTimeout(resolve, 10));
  return firstValueFrom(memory.snapshots());
}

const testScheduler = workerTestScheduler;
const options: RelayOptions = { id: ID, advertiseHost: HOST };

describe('relayWorkers (marbles)', () => {
  it('copies adds, updates and drops in order per worker, rewriting loopback hosts; completing withdraws and completes', async () => {
    const a = testWorker(1);
    const b = testWorker(2, { address: '10.1.1.1:7000' });
    const a2 = testWorker(1, { version: '2.0.0' });
    const b2 = testWorker(2, { address: '10.1.1.1:7000', tags: ['gpu'] });
    const { target, calls, memory } = recordingTarget();
    let relay$: Observable<RelayStatus> | undefined;
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('  -a-b-u-v-x-y-|', {
        a: added(a),
        b: added(b),
        u: updated(a2),
        v: updated(b2),
        x: dropped(a2),
        y: dropped(b2),
      });
      const subs = '         ^------------!';
      const written = '      -A-B-U-V-X-Y--';
      relay$ = relayWorkers(source, target, options);
      expectObservable(relay$.pipe(filter((item) => item.type !== 'relay-status')), '^------------').toBe('');
      expectObservable(calls, '^-------------').toBe(written, {
        A: added(relayed(a)),
        B: added(relayed(b)),
        U: added(relayed(a2)), // an update is written as an add: it refreshes the worker in place
        V: added(relayed(b2)),
        X: dropped(relayed(a2)),
        Y: dropped(relayed(b2)),
      });
      expectSubscriptions(source.subscriptions).toBe(subs);
    });
    assert.deepEqual([...(await settledContents(memory)).keys()], []);
    // The same relay, run for real: subscribers of the target see each change once, in order.
    const seen: string[] = [];
    const watching = memory
      .events()
      .subscribe((event) =>
        seen.push(`${event.type} ${event.worker.uid.slice(0, 8)} ${event.worker.version} ${event.worker.address}`),
      );
    const items = await lastValueFrom(
      relayWorkers(
        new Observable<DiscoveryEvent>((subscriber) => {
          for (const event of [added(a), added(b), updated(a2), updated(b2), dropped(a2), dropped(b2)])
            subscriber.next(event);
          subscriber.complete();
        }),
        target,
        options,
      ).pipe(toArray()),
    );
    watching.unsubscribe();
    assert.deepEqual(seen, [
      `worker-added ${a.uid.slice(0, 8)} 1.0.0 ${HOST}:${a.address.split(':')[1]}`,
      `worker-added ${b.uid.slice(0, 8)} 1.0.0 10.1.1.1:7000`,
      `worker-updated ${a.uid.slice(0, 8)} 2.0.0 ${HOST}:${a.address.split(':')[1]}`,
      `worker-updated ${b.uid.slice(0, 8)} 1.0.0 10.1.1.1:7000`,
      `worker-dropped ${a.uid.slice(0, 8)} 2.0.0 ${HOST}:${a.address.split(':')[1]}`,
      `worker-dropped ${b.uid.slice(0, 8)} 1.0.0 10.1.1.1:7000`,
    ]);
    assert.deepEqual(items.at(-1), {
      type: 'relay-status',
      relayed: 0,
      skipped: 0,
      pending: 0,
      target: 'up',
      synced: true,
    });
  });

  it('a source error: stops writing, withdraws what it relayed, then errors with that error', async () => {
    const a = testWorker(1);
    const failure = new Error('source broke');
    const { target, calls, memory } = recordingTarget();
    let relay$: Observable<RelayStatus> | undefined;
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('  -a--#', { a: added(a) }, failure);
      relay$ = relayWorkers(source, target, options);
      expectObservable(calls, '^------').toBe('-A-----', { A: added(relayed(a)) });
      expectObservable(relay$.pipe(filter((item) => item.type !== 'relay-status')), '^------').toBe('');
      expectSubscriptions(source.subscriptions).toBe('^---!');
    });
    // Run for real: the error arrives after the withdrawal.
    const live = relayWorkers(
      new Observable<DiscoveryEvent>((subscriber) => {
        subscriber.next(added(a));
        setTimeout(() => subscriber.error(failure), 5);
      }),
      target,
      options,
    );
    await assert.rejects(lastValueFrom(live), failure);
    assert.deepEqual([...(await settledContents(memory)).keys()], []);
  });

  it('an early unsubscribe stops watching the source and withdraws everything', async () => {
    const [a, b, c] = [testWorker(1), testWorker(2), testWorker(3)];
    const { target, calls, memory } = recordingTarget();
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('  -a-b---c-|', { a: added(a), b: added(b), c: added(c) });
      const relay = '        ^----!    ';
      expectObservable(
        relayWorkers(source, target, options).pipe(filter((item) => item.type !== 'relay-status')),
        relay,
      ).toBe('');
      expectObservable(calls, '^---------').toBe('-A-B------', { A: added(relayed(a)), B: added(relayed(b)) });
      expectSubscriptions(source.subscriptions).toBe(relay);
    });
    assert.deepEqual([...(await settledContents(memory)).keys()], [], 'withdrawn after the unsubscribe');
  });

  it('an empty source completes after one last status; a never source writes nothing and reports itself synced', async () => {
    const { target, calls, memory } = recordingTarget();
    const idle = { type: 'relay-status', relayed: 0, skipped: 0, pending: 0, target: 'up', synced: true } as const;
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const never = cold<DiscoveryEvent>('-');
      expectObservable(relayWorkers(never, target, options), '^-----!').toBe('s', { s: idle });
      expectObservable(calls, '^-----').toBe('');
      expectSubscriptions(never.subscriptions).toBe('^-----!');
    });
    assert.deepEqual(
      await lastValueFrom(
        relayWorkers(new Observable<DiscoveryEvent>((s) => s.complete()), target, options).pipe(toArray()),
      ),
      [idle],
    );
    assert.deepEqual([...(await settledContents(memory)).keys()], []);
  });

  it('skips a loopback worker without advertiseHost with one relay-skipped item naming the fix; relays it once its address is reachable', () => {
    const local = testWorker(1); // 127.0.0.1
    const localAgain = testWorker(1, { version: '2.0.0' });
    const wildcard = testWorker(2, { address: '0.0.0.0:7002' });
    const moved = testWorker(1, { version: '3.0.0', address: '10.2.2.2:7001' });
    const back = testWorker(1, { version: '4.0.0' });
    const { target, calls } = recordingTarget();
    testScheduler().run(({ cold, expectObservable }) => {
      const source = cold('  -a-u-w-m-b-', {
        a: added(local),
        u: updated(localAgain),
        w: added(wildcard),
        m: updated(moved),
        b: updated(back),
      });
      const relay$ = relayWorkers(source, target, { id: ID });
      const skipped = (uid: string, host: string, kind: string): RelayStatus => ({
        type: 'relay-skipped',
        uid,
        reason: `its address ${host} is on a ${kind} host, which other hosts cannot reach; pass advertiseHost (CLI: --advertise-host) with this host's address`,
      });
      expectObservable(relay$.pipe(filter((item) => item.type === 'relay-skipped')), '^----------').toBe(
        '-a---w---b-',
        {
          a: skipped(local.uid, local.address, 'loopback'),
          w: skipped(wildcard.uid, wildcard.address, 'wildcard'),
          b: skipped(back.uid, back.address, 'loopback'),
        },
      );
      // Relayed when it moves to a reachable address, withdrawn when it moves back.
      expectObservable(calls, '^----------').toBe('-------M-B-', {
        M: added(relayed(moved)),
        B: dropped(relayed(moved)),
      });
    });
  });

  it("never copies a worker that carries a relay mark (its own or another relay's): one hop only", () => {
    const marked = testWorker(1, { address: '10.1.1.1:7001', extra: { [RELAY_MARK]: 'relay-b' } });
    const mine = testWorker(2, { address: '10.1.1.2:7002', extra: { [RELAY_MARK]: ID } });
    const plain = testWorker(3, { address: '10.1.1.3:7003' });
    const { target, calls } = recordingTarget();
    testScheduler().run(({ cold, expectObservable }) => {
      const source = cold('  -a-b-c-', { a: added(marked), b: added(mine), c: added(plain) });
      const relay$ = relayWorkers(source, target, options);
      expectObservable(relay$.pipe(filter((item) => item.type === 'relay-skipped')), '^------').toBe('-a-b---', {
        a: {
          type: 'relay-skipped',
          uid: marked.uid,
          reason: 'it was put there by relay "relay-b" (a relay copies a worker one hop only)',
        },
        b: {
          type: 'relay-skipped',
          uid: mine.uid,
          reason: `it was put there by relay "${ID}" (a relay copies a worker one hop only)`,
        },
      });
      expectObservable(calls, '^------').toBe('-----C-', { C: added(relayed(plain)) });
    });
  });

  it('filter: relays only passing workers, withdrawing one whose update makes it fail', () => {
    const gpu = testWorker(1, { address: '10.1.1.1:7001', tags: ['gpu'] });
    const cpu = testWorker(2, { address: '10.1.1.2:7002' });
    const gpuGone = testWorker(1, { address: '10.1.1.1:7001', version: '2.0.0' });
    const { target, calls } = recordingTarget();
    testScheduler().run(({ cold, expectObservable }) => {
      const source = cold('  -a-b-u-', { a: added(gpu), b: added(cpu), u: updated(gpuGone) });
      const relay$ = relayWorkers(source, target, { ...options, filter: (worker) => worker.tags.includes('gpu') });
      expectObservable(relay$.pipe(filter((item) => item.type !== 'relay-status')), '^------').toBe('');
      expectObservable(calls, '^------').toBe('-a---x-', { a: added(relayed(gpu)), x: dropped(relayed(gpu)) });
    });
  });

  it('coalesces its status: one relay-status per scheduler turn, only when something changed', () => {
    const [a, b] = [testWorker(1, { address: '10.1.1.1:7001' }), testWorker(2)];
    const { target } = recordingTarget();
    testScheduler().run(({ cold, expectObservable }) => {
      const source = cold('  -(ab)--', { a: added(a), b: added(b) });
      const relay$ = relayWorkers(source, target, { id: ID }).pipe(filter((item) => item.type === 'relay-status'));
      // In virtual time the publish promises never settle: the write stays pending.
      expectObservable(relay$, '^------').toBe('sp-----', {
        s: { type: 'relay-status', relayed: 0, skipped: 0, pending: 0, target: 'up', synced: true },
        p: { type: 'relay-status', relayed: 1, skipped: 1, pending: 1, target: 'up', synced: false },
      });
    });
  });
});
