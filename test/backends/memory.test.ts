import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import type { Subscription } from 'rxjs';
import { memoryDiscovery } from '../../src/backends/memory/memoryDiscovery.js';
import { MemoryRegistry } from '../../src/backends/memory/MemoryRegistry.js';
import type { DiscoveryDiagnostic } from '../../src/discovery/types.js';
import type { DiscoveryEvent } from '../../src/events/types.js';
import type { WorkerInfo } from '../../src/model/types.js';
import { workerInfo } from '../../src/model/workerInfo.js';
import { describeDiscoveryContract } from '../contract/discoveryContract.js';

describeDiscoveryContract('memory', () => ({ discovery: (namespace) => memoryDiscovery(namespace) }), {
  settleMs: 0,
  assertReleased: (discovery) => {
    assert.equal(MemoryRegistry.default.watcherCount(discovery.namespace), 0, 'a watcher is left');
    assert.ok(
      !MemoryRegistry.default.namespaces.includes(discovery.namespace),
      `namespace ${discovery.namespace} left behind in the registry`,
    );
  },
});

describeDiscoveryContract(
  'memory (own registry)',
  () => {
    const registry = new MemoryRegistry();
    return {
      discovery: (namespace) => memoryDiscovery(namespace, { registry }),
      teardown: () => assert.deepEqual(registry.namespaces, [], 'the registry is empty after the suite'),
    };
  },
  { settleMs: 0 },
);

let serial = 0;
function worker(version = '1', tags: string[] = []): WorkerInfo {
  serial++;
  return workerInfo({ uid: randomUUID(), address: `127.0.0.1:${30000 + serial}`, pid: 7, version, tags });
}

function show(events: readonly DiscoveryEvent[], names: Map<string, string>): string[] {
  return events.map(
    (event) => `${event.type.slice('worker-'.length)} ${names.get(event.worker.uid) ?? '?'}@${event.worker.version}`,
  );
}

describe('memoryDiscovery', () => {
  it('emits the current workers synchronously, in one burst, on subscribe', async () => {
    const registry = new MemoryRegistry();
    const discovery = memoryDiscovery('burst', { registry });
    const publisher = discovery.publisher();
    const a = worker();
    const b = worker();
    await publisher.publish('worker-added', a);
    await publisher.publish('worker-added', b);
    const seen: DiscoveryEvent[] = [];
    const subscription = discovery.events().subscribe((event) => seen.push(event));
    assert.deepEqual(
      seen.map((event) => [event.type, event.worker.uid]),
      [
        ['worker-added', a.uid],
        ['worker-added', b.uid],
      ],
    );
    subscription.unsubscribe();
    await publisher.close();
  });

  it('delivers a change to every subscriber before publish returns', async () => {
    const registry = new MemoryRegistry();
    const discovery = memoryDiscovery('sync', { registry });
    const publisher = discovery.publisher();
    const seen: DiscoveryEvent[] = [];
    const subscription = discovery.events().subscribe((event) => seen.push(event));
    const pending = publisher.publish('worker-added', worker());
    assert.equal(seen.length, 1);
    await pending;
    subscription.unsubscribe();
    await publisher.close();
  });

  it('leaves no namespace entry behind once it has neither workers nor subscribers', async () => {
    const registry = new MemoryRegistry();
    const discovery = memoryDiscovery('tidy', { registry });
    const publisher = discovery.publisher();
    assert.deepEqual(registry.namespaces, [], 'a publisher alone creates nothing');

    const subscription = discovery.events().subscribe();
    assert.deepEqual(registry.namespaces, ['tidy']);
    assert.equal(registry.watcherCount('tidy'), 1);
    subscription.unsubscribe();
    assert.deepEqual(registry.namespaces, []);
    assert.equal(registry.watcherCount('tidy'), 0);

    const a = worker();
    await publisher.publish('worker-added', a);
    assert.deepEqual(registry.namespaces, ['tidy']);
    assert.deepEqual([...registry.workers('tidy').keys()], [a.uid]);
    await publisher.publish('worker-dropped', a);
    assert.deepEqual(registry.namespaces, []);

    await publisher.publish('worker-dropped', a); // unknown: no-op, creates nothing
    await assert.rejects(publisher.publish('worker-updated', a));
    assert.deepEqual(registry.namespaces, []);

    await publisher.publish('worker-added', a);
    const filtered = discovery.events(() => false).subscribe();
    await publisher.close();
    assert.deepEqual(registry.namespaces, ['tidy'], 'the subscription still holds it');
    filtered.unsubscribe();
    assert.deepEqual(registry.namespaces, []);
  });

  it('does not grow with many short-lived namespaces', async () => {
    const registry = new MemoryRegistry();
    for (let i = 0; i < 2000; i++) {
      const discovery = memoryDiscovery(`ns-${i}`, { registry });
      const subscription = discovery.events().subscribe();
      const publisher = discovery.publisher();
      await publisher.publish('worker-added', worker());
      subscription.unsubscribe();
      await publisher.close();
    }
    assert.deepEqual(registry.namespaces, []);
  });

  it('shares the default registry between discoveries of one namespace, and isolates own registries', async () => {
    const namespace = `shared-${randomUUID()}`;
    const own = new MemoryRegistry();
    const seenDefault: DiscoveryEvent[] = [];
    const seenOwn: DiscoveryEvent[] = [];
    const subDefault = memoryDiscovery(namespace)
      .events()
      .subscribe((event) => seenDefault.push(event));
    const subOwn = memoryDiscovery(namespace, { registry: own })
      .events()
      .subscribe((event) => seenOwn.push(event));
    const publisher = memoryDiscovery(namespace).publisher();
    const a = worker();
    await publisher.publish('worker-added', a);
    assert.equal(seenDefault.length, 1);
    assert.equal(seenOwn.length, 0);
    assert.deepEqual([...MemoryRegistry.default.workers(namespace).keys()], [a.uid]);
    assert.equal(own.workers(namespace).size, 0);
    await publisher.close();
    subDefault.unsubscribe();
    subOwn.unsubscribe();
    assert.ok(!MemoryRegistry.default.namespaces.includes(namespace));
  });

  it('uses the namespace "default" when none is given', () => {
    assert.equal(memoryDiscovery().namespace, 'default');
    assert.equal(memoryDiscovery().publisher().namespace, 'default');
  });

  it('a worker belongs to the publisher that registered it: updates and re-adds from another publisher do not move it', async () => {
    const registry = new MemoryRegistry();
    const discovery = memoryDiscovery('owners', { registry });
    const other = memoryDiscovery('owners', { registry });
    const diagnostics: DiscoveryDiagnostic[] = [];
    const diagnosticsSub = other.diagnostics.subscribe((diagnostic) => diagnostics.push(diagnostic));
    const names = new Map<string, string>();
    const a = worker();
    const b = worker();
    names.set(a.uid, 'A').set(b.uid, 'B');
    const seen: DiscoveryEvent[] = [];
    const subscription = discovery.events().subscribe((event) => seen.push(event));

    const first = discovery.publisher();
    const second = other.publisher();
    await first.publish('worker-added', a);
    await first.publish('worker-added', b);
    await second.publish('worker-added', a); // same metadata: no event, and first still owns A
    await second.publish('worker-updated', workerInfo({ ...b, version: '2' })); // first still owns B

    await second.close(); // owns nothing: withdraws nothing
    assert.deepEqual(show(seen, names), ['added A@1', 'added B@1', 'updated B@2']);
    await first.close(); // withdraws A and B
    assert.deepEqual(show(seen, names), ['added A@1', 'added B@1', 'updated B@2', 'dropped A@1', 'dropped B@2']);
    assert.deepEqual(registry.workers('owners').size, 0);

    // Any publisher may drop any registered worker; once dropped, its owner no longer withdraws it,
    // and the next publisher to register it owns it.
    const third = discovery.publisher();
    const fourth = discovery.publisher();
    await third.publish('worker-added', a);
    await fourth.publish('worker-dropped', a);
    await fourth.publish('worker-added', a);
    await third.close();
    assert.equal(registry.workers('owners').size, 1, 'fourth registered A after it was dropped: it owns it');
    await fourth.close();
    assert.equal(registry.workers('owners').size, 0);
    assert.deepEqual(diagnostics, [], 'sharing a worker is not a warning');
    subscription.unsubscribe();
    diagnosticsSub.unsubscribe();
  });

  it('stores a validated, frozen copy of what is published', async () => {
    const registry = new MemoryRegistry();
    const discovery = memoryDiscovery('copies', { registry });
    const publisher = discovery.publisher();
    const a = worker('1', ['x']);
    const lookAlike = { ...a, tags: ['x'], uid: a.uid.toUpperCase() } as unknown as WorkerInfo;
    await publisher.publish('worker-added', lookAlike);
    (lookAlike.tags as string[]).push('mutated');
    const stored = registry.workers('copies').get(a.uid);
    assert.ok(stored);
    assert.ok(Object.isFrozen(stored));
    assert.deepEqual(stored.tags, ['x']);
    await publisher.close();
  });

  it('rejects bad arguments with a TypeError naming the value', async () => {
    assert.throws(() => memoryDiscovery(''), /namespace must be a non-empty string, got ""/);
    assert.throws(() => memoryDiscovery(42 as never), /namespace must be a non-empty string, got 42/);
    assert.throws(() => memoryDiscovery('x', null as never), /options must be an object, got null/);
    assert.throws(() => memoryDiscovery('x', { registry: {} as never }), /registry must be a MemoryRegistry, got \{\}/);
    assert.throws(() => memoryDiscovery('x').events('gpu' as never), /filter must be a function, got "gpu"/);
    const publisher = memoryDiscovery('x', { registry: new MemoryRegistry() }).publisher();
    await assert.rejects(publisher.publish('worker-gone' as never, worker()), /invalid event type "worker-gone"/);
    await assert.rejects(publisher.publish('worker-added', { uid: 'nope' } as never), /Invalid worker uid: "nope"/);
  });

  describe('re-entrancy', () => {
    it('a subscriber publishing from inside next: every subscriber sees the changes in order', async () => {
      const registry = new MemoryRegistry();
      const discovery = memoryDiscovery('reentrant', { registry });
      const publisher = discovery.publisher();
      const names = new Map<string, string>();
      const a = worker();
      names.set(a.uid, 'A');
      const first: DiscoveryEvent[] = [];
      const second: DiscoveryEvent[] = [];
      const pending: Promise<void>[] = [];
      const sub1 = discovery.events().subscribe((event) => {
        first.push(event);
        if (event.type === 'worker-added') pending.push(publisher.publish('worker-dropped', event.worker));
      });
      const sub2 = discovery.events().subscribe((event) => second.push(event));
      await publisher.publish('worker-added', a);
      await Promise.all(pending);
      assert.deepEqual(show(first, names), ['added A@1', 'dropped A@1']);
      assert.deepEqual(show(second, names), ['added A@1', 'dropped A@1']);
      sub1.unsubscribe();
      sub2.unsubscribe();
      await publisher.close();
      assert.deepEqual(registry.namespaces, []);
    });

    it('a subscriber subscribing from inside next: the newcomer sees that change once, in its burst', async () => {
      const registry = new MemoryRegistry();
      const discovery = memoryDiscovery('joiner', { registry });
      const publisher = discovery.publisher();
      const names = new Map<string, string>();
      const [a, b, c] = [worker(), worker(), worker()];
      names.set(a.uid, 'A').set(b.uid, 'B').set(c.uid, 'C');
      const late: DiscoveryEvent[] = [];
      const subs: Subscription[] = [];
      let joined = false;
      subs.push(
        discovery.events().subscribe((event) => {
          if (event.worker.uid === b.uid && !joined) {
            joined = true;
            subs.push(discovery.events().subscribe((e) => late.push(e)));
          }
        }),
      );
      // Another subscriber after the first, so B is still being delivered when the newcomer joins.
      subs.push(discovery.events().subscribe());
      await publisher.publish('worker-added', a);
      await publisher.publish('worker-added', b);
      await publisher.publish('worker-added', c);
      assert.deepEqual(show(late, names), ['added A@1', 'added B@1', 'added C@1']);
      for (const sub of subs) sub.unsubscribe();
      await publisher.close();
    });

    it("changes made during a subscriber's initial burst reach it after the burst, once", async () => {
      const registry = new MemoryRegistry();
      const discovery = memoryDiscovery('burst-reentrant', { registry });
      const publisher = discovery.publisher();
      const names = new Map<string, string>();
      const [a, b, c] = [worker(), worker(), worker()];
      names.set(a.uid, 'A').set(b.uid, 'B').set(c.uid, 'C');
      await publisher.publish('worker-added', a);
      await publisher.publish('worker-added', b);
      const seen: DiscoveryEvent[] = [];
      const pending: Promise<void>[] = [];
      const sub = discovery.events().subscribe((event) => {
        seen.push(event);
        if (seen.length === 1) {
          pending.push(publisher.publish('worker-dropped', b), publisher.publish('worker-added', c));
        }
      });
      await Promise.all(pending);
      assert.deepEqual(show(seen, names), ['added A@1', 'added B@1', 'dropped B@1', 'added C@1']);
      sub.unsubscribe();
      await publisher.close();
    });

    it('a subscriber unsubscribing another from inside next: that one gets nothing more', async () => {
      const registry = new MemoryRegistry();
      const discovery = memoryDiscovery('leaver', { registry });
      const publisher = discovery.publisher();
      const victim: DiscoveryEvent[] = [];
      const subs: Subscription[] = [];
      subs.push(discovery.events().subscribe(() => subs[1]?.unsubscribe()));
      subs.push(discovery.events().subscribe((event) => victim.push(event)));
      const third: DiscoveryEvent[] = [];
      subs.push(discovery.events().subscribe((event) => third.push(event)));
      await publisher.publish('worker-added', worker());
      assert.deepEqual(victim, []);
      assert.equal(third.length, 1);
      assert.equal(registry.watcherCount('leaver'), 2);
      for (const sub of subs) sub.unsubscribe();
      await publisher.close();
      assert.deepEqual(registry.namespaces, []);
    });
  });
});
