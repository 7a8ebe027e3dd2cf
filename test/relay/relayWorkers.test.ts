// relayWorkers over real memory discoveries, in real time: a target that
// goes down and comes back (re-sync, no ghost, no duplicate), a target that
// refuses one worker, what the relay does with the target's own changes
// (repairs, left-overs of a previous run, another relay's workers), and its
// argument checks.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { filter, firstValueFrom, lastValueFrom, NEVER, Subject, takeUntil, toArray, type Subscription } from 'rxjs';
import { memoryDiscovery } from '../../src/backends/memory/memoryDiscovery.js';
import { MemoryRegistry } from '../../src/backends/memory/MemoryRegistry.js';
import type { Discovery, WorkerPublisher } from '../../src/discovery/types.js';
import type { DiscoveryEvent, DiscoveryEventType } from '../../src/events/types.js';
import type { WorkerInfo } from '../../src/model/types.js';
import { workerInfo } from '../../src/model/workerInfo.js';
import { RELAY_MARK } from '../../src/relay/RELAY_MARK.js';
import { relayWorkers } from '../../src/relay/relayWorkers.js';
import type { RelayStatus, RelayStatusUpdate } from '../../src/relay/types.js';
import { testWorker } from '../../src/testing/testWorker.js';

const ID = 'relay-t';

/** Reachable test worker n (a non-loopback address, so no advertiseHost is needed). */
function w(n: number, version = '1'): WorkerInfo {
  return testWorker(n, { address: `10.9.0.${n}:7000`, version });
}

function marked(worker: WorkerInfo, id = ID): WorkerInfo {
  return workerInfo({ ...worker, extra: { ...worker.extra, [RELAY_MARK]: id } });
}

/**
 * A memory target whose publishers fail every write while `down` is set (and refuse to add or update uids in `refuse`).
 */
class FlakyTarget {
  readonly memory: Discovery;
  readonly target: Discovery;
  down = false;
  readonly refuse = new Set<string>();
  writes = 0;

  constructor(registry: MemoryRegistry, namespace = 'target') {
    this.memory = memoryDiscovery(namespace, { registry });
    this.target = Object.freeze({
      ...this.memory,
      publisher: (): WorkerPublisher => {
        const inner = this.memory.publisher();
        return {
          get namespace() {
            return inner.namespace;
          },
          get closed() {
            return inner.closed;
          },
          publish: (type: DiscoveryEventType, worker: WorkerInfo) => {
            this.writes++;
            if (this.down) return Promise.reject(Object.assign(new Error('target unreachable'), { code: 'TEST_DOWN' }));
            if (type !== 'worker-dropped' && this.refuse.has(worker.uid))
              return Promise.reject(new TypeError(`worker ${worker.uid} does not fit`));
            return inner.publish(type, worker);
          },
          close: () => inner.close(),
          [Symbol.asyncDispose]: () => inner.close(),
        };
      },
    });
  }

  async contents(): Promise<Map<string, WorkerInfo>> {
    return new Map(await firstValueFrom(this.memory.snapshots()));
  }
}

/** Subscribes to a relay and keeps its items. */
class Run {
  readonly items: RelayStatus[] = [];
  readonly subscription: Subscription;
  error: unknown;

  constructor(relay: ReturnType<typeof relayWorkers>) {
    this.subscription = relay.subscribe({
      next: (item) => this.items.push(item),
      error: (error: unknown) => (this.error = error),
    });
  }

  get status(): RelayStatusUpdate | undefined {
    return this.items.filter((item): item is RelayStatusUpdate => item.type === 'relay-status').at(-1);
  }

  async until(
    condition: (status: RelayStatusUpdate) => boolean,
    what: string,
    timeout = 5000,
  ): Promise<RelayStatusUpdate> {
    const deadline = Date.now() + timeout;
    for (;;) {
      const status = this.status;
      if (status !== undefined && condition(status)) return status;
      if (Date.now() > deadline)
        throw new Error(`timed out waiting for ${what}; items: ${JSON.stringify(this.items.slice(-5))}`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('relayWorkers: target down and back', () => {
  it('keeps following the source while the target is down, then re-syncs it: no ghost, no duplicate, order kept', async () => {
    const registry = new MemoryRegistry();
    const source = memoryDiscovery('source', { registry });
    const flaky = new FlakyTarget(registry);
    const seen: DiscoveryEvent[] = [];
    const watching = flaky.memory.events().subscribe((event) => seen.push(event));
    const publisher = source.publisher();
    const run = new Run(relayWorkers(source, flaky.target, { id: ID }));
    try {
      await publisher.publish('worker-added', w(1));
      await publisher.publish('worker-added', w(2));
      await run.until((status) => status.synced && status.relayed === 2, 'two relayed');

      flaky.down = true;
      await publisher.publish('worker-dropped', w(1)); // fails: the target goes down
      await publisher.publish('worker-updated', w(2, '2'));
      await publisher.publish('worker-added', w(3));
      const down = await run.until((status) => status.target === 'down', 'target down');
      assert.equal(down.synced, false);
      assert.ok(
        run.items.some((item) => item.type === 'relay-error' && item.code === 'TEST_DOWN' && item.uid === undefined),
        'one relay-error says the target is down',
      );
      await sleep(300); // a few retries fail
      const errors = run.items.filter((item) => item.type === 'relay-error').length;
      assert.equal(errors, 1, 'one relay-error per outage, not one per retry');

      flaky.down = false;
      await run.until((status) => status.target === 'up' && status.synced, 're-synced', 10_000);
      const contents = await flaky.contents();
      assert.deepEqual(
        [...contents.keys()].sort(),
        [w(2).uid, w(3).uid].sort(),
        'worker 1, dropped while down, is gone',
      );
      assert.equal(contents.get(w(2).uid)?.version, '2');
      assert.deepEqual(
        seen.map((event) => `${event.type} ${event.worker.uid.slice(0, 8)}@${event.worker.version}`).sort(),
        [
          `worker-added ${w(1).uid.slice(0, 8)}@1`,
          `worker-added ${w(2).uid.slice(0, 8)}@1`,
          `worker-dropped ${w(1).uid.slice(0, 8)}@1`,
          `worker-updated ${w(2).uid.slice(0, 8)}@2`,
          `worker-added ${w(3).uid.slice(0, 8)}@1`,
        ].sort(),
        'each change once',
      );
    } finally {
      run.subscription.unsubscribe();
      watching.unsubscribe();
      await publisher.close();
    }
  });

  it('a target not read yet (its watch has not synced): retries write every worker again, and the target stays down until one goes through', async () => {
    const registry = new MemoryRegistry();
    const source = memoryDiscovery('source', { registry });
    const flaky = new FlakyTarget(registry);
    const silent: Discovery = Object.freeze({ ...flaky.target, watch: () => NEVER });
    const publisher = source.publisher();
    flaky.down = true;
    await publisher.publish('worker-added', w(1));
    const run = new Run(relayWorkers(source, silent, { id: ID }));
    try {
      await run.until((status) => status.target === 'down', 'target down');
      await sleep(700); // retries at 100, 200 and 400 ms
      assert.equal(run.status?.target, 'down', 'still down: every retry failed');
      assert.ok(flaky.writes >= 3, `retried, ${flaky.writes} writes`);
      flaky.down = false;
      const up = await run.until((status) => status.target === 'up' && status.pending === 0, 'up again', 5000);
      assert.equal(up.synced, false, 'not synced: the target was never read');
      assert.deepEqual([...(await flaky.contents()).keys()], [w(1).uid]);
    } finally {
      run.subscription.unsubscribe();
      await publisher.close();
    }
  });

  it('a worker the target refuses is reported once with its uid and skipped; the target stays up', async () => {
    const registry = new MemoryRegistry();
    const source = memoryDiscovery('source', { registry });
    const flaky = new FlakyTarget(registry);
    flaky.refuse.add(w(2).uid);
    const publisher = source.publisher();
    const run = new Run(relayWorkers(source, flaky.target, { id: ID }));
    try {
      await publisher.publish('worker-added', w(1));
      await publisher.publish('worker-added', w(2));
      const status = await run.until((s) => s.synced && s.relayed + s.skipped === 2, 'settled');
      assert.deepEqual(status, {
        type: 'relay-status',
        relayed: 1,
        skipped: 1,
        pending: 0,
        target: 'up',
        synced: true,
      });
      const errors = run.items.filter((item) => item.type === 'relay-error');
      assert.equal(errors.length, 1);
      assert.equal(errors[0]?.type === 'relay-error' ? errors[0].uid : undefined, w(2).uid);
      assert.deepEqual([...(await flaky.contents()).keys()], [w(1).uid]);
      // A change of the refused worker is tried again.
      flaky.refuse.clear();
      await publisher.publish('worker-updated', w(2, '2'));
      await run.until((s) => s.synced && s.relayed === 2, 'the changed worker relayed');
      assert.equal((await flaky.contents()).get(w(2).uid)?.version, '2');
    } finally {
      run.subscription.unsubscribe();
      await publisher.close();
    }
  });
});

describe("relayWorkers: the target's own changes", () => {
  it('re-adds a relayed worker someone else dropped from the target', async () => {
    const registry = new MemoryRegistry();
    const source = memoryDiscovery('source', { registry });
    const flaky = new FlakyTarget(registry);
    const publisher = source.publisher();
    const intruder = flaky.memory.publisher();
    const run = new Run(relayWorkers(source, flaky.target, { id: ID }));
    try {
      await publisher.publish('worker-added', w(1));
      await run.until((s) => s.synced && s.relayed === 1, 'relayed');
      await intruder.publish('worker-dropped', w(1));
      await sleep(50);
      assert.deepEqual((await flaky.contents()).get(w(1).uid), marked(w(1)), 'back in the target');
    } finally {
      run.subscription.unsubscribe();
      await publisher.close();
      await intruder.close();
    }
  });

  it("drops what a previous run with the same id left behind, and leaves other relays' and plain workers alone", async () => {
    const registry = new MemoryRegistry();
    const source = memoryDiscovery('source', { registry });
    const flaky = new FlakyTarget(registry);
    const previous = flaky.memory.publisher();
    const publisher = source.publisher();
    await previous.publish('worker-added', marked(w(1))); // still in the source: kept
    await previous.publish('worker-added', marked(w(2))); // gone from the source: a ghost
    await previous.publish('worker-added', marked(w(3), 'relay-other'));
    await previous.publish('worker-added', w(4));
    await publisher.publish('worker-added', w(1));
    const seen: DiscoveryEvent[] = [];
    const watching = flaky.memory.events().subscribe((event) => seen.push(event));
    seen.length = 0;
    const run = new Run(relayWorkers(source, flaky.target, { id: ID }));
    try {
      await run.until((s) => s.synced, 'synced');
      await sleep(30);
      assert.deepEqual([...(await flaky.contents()).keys()].sort(), [w(1).uid, w(3).uid, w(4).uid].sort());
      assert.deepEqual(
        seen.map((event) => `${event.type} ${event.worker.uid.slice(0, 8)}`),
        [`worker-dropped ${w(2).uid.slice(0, 8)}`],
        'only the ghost changed (worker 1 was re-written with the same metadata: no event)',
      );
    } finally {
      run.subscription.unsubscribe();
      watching.unsubscribe();
      await publisher.close();
      await previous.close();
    }
  });

  it('two relays copying the same worker into one target do not fight (no event storm)', async () => {
    const registry = new MemoryRegistry();
    const source = memoryDiscovery('source', { registry });
    const flaky = new FlakyTarget(registry);
    const publisher = source.publisher();
    const seen: DiscoveryEvent[] = [];
    const watching = flaky.memory.events().subscribe((event) => seen.push(event));
    const a = new Run(relayWorkers(source, flaky.target, { id: 'relay-a' }));
    const b = new Run(relayWorkers(source, flaky.target, { id: 'relay-b' }));
    try {
      await publisher.publish('worker-added', w(1));
      await sleep(200);
      assert.ok(seen.length <= 3, `a bounded number of target events, got ${seen.length}`);
      assert.ok(flaky.writes <= 4, `a bounded number of writes, got ${flaky.writes}`);
    } finally {
      a.subscription.unsubscribe();
      b.subscription.unsubscribe();
      watching.unsubscribe();
      await publisher.close();
    }
  });
});

describe('relayWorkers: composing and stopping', () => {
  it('relays a filtered events() stream; takeUntil on the source withdraws and completes with a last status', async () => {
    const registry = new MemoryRegistry();
    const source = memoryDiscovery('source', { registry });
    const flaky = new FlakyTarget(registry);
    const publisher = source.publisher();
    const stop = new Subject<void>();
    await publisher.publish('worker-added', w(1));
    await publisher.publish('worker-added', testWorker(2, { address: '10.9.0.2:7000', tags: ['gpu'] }));
    const done = lastValueFrom(
      relayWorkers(source.watch((worker) => worker.tags.includes('gpu')).pipe(takeUntil(stop)), flaky.target).pipe(
        toArray(),
      ),
    );
    try {
      await sleep(30);
      assert.deepEqual([...(await flaky.contents()).keys()], [w(2).uid]);
      stop.next();
      const items = await done;
      assert.deepEqual(items.at(-1), {
        type: 'relay-status',
        relayed: 0,
        skipped: 0,
        pending: 0,
        target: 'up',
        synced: true,
      });
      assert.equal((await flaky.contents()).size, 0, 'withdrawn before completing');
    } finally {
      await publisher.close();
    }
  });

  it("passes the source's and the target's diagnostics on as relay-diagnostic items", async () => {
    const registry = new MemoryRegistry();
    const diagnostics = new Subject<{ kind: 'warning'; namespace: string; message: string; error?: unknown }>();
    const source: Discovery = Object.freeze({ ...memoryDiscovery('source', { registry }), diagnostics });
    const flaky = new FlakyTarget(registry);
    const items = firstValueFrom(
      relayWorkers(source, flaky.target).pipe(filter((item) => item.type === 'relay-diagnostic')),
    );
    diagnostics.next({ kind: 'warning', namespace: 'source', message: 'something odd', error: { code: 'WOOLRX_X' } });
    assert.deepEqual(await items, {
      type: 'relay-diagnostic',
      side: 'source',
      kind: 'warning',
      message: 'something odd',
      code: 'WOOLRX_X',
    });
  });

  it('refuses bad arguments with a TypeError naming the value and the fix', () => {
    const target = memoryDiscovery('t', { registry: new MemoryRegistry() });
    const cases: [() => unknown, RegExp][] = [
      [() => relayWorkers({} as never, target), /^relayWorkers: source must be a Discovery or an Observable/],
      [() => relayWorkers(target, 42 as never), /^relayWorkers: target must be a Discovery/],
      [
        () => relayWorkers(target, target, { advertiseHost: '127.0.0.1' }),
        /^relayWorkers: option advertiseHost must be this host's address .*not a loopback or wildcard host, got "127\.0\.0\.1"$/,
      ],
      [() => relayWorkers(target, target, { advertiseHost: '::' }), /option advertiseHost must be .*, got "::"$/],
      [() => relayWorkers(target, target, { id: '' }), /^relayWorkers: option id must be a non-empty string, got ""$/],
      [() => relayWorkers(target, target, { advertize: 'x' } as never), /^relayWorkers: unknown option "advertize"/],
      [() => relayWorkers(target, target, { filter: 'gpu' } as never), /option filter must be a function/],
    ];
    for (const [call, message] of cases)
      assert.throws(
        call,
        (error: unknown) => error instanceof TypeError && message.test(error.message),
        String(message),
      );
  });
});
