/**
 * The behaviour every woolrx discovery backend must have, as a reusable
 * node:test suite. A backend's test file calls {@link describeDiscoveryContract}
 * once, with a factory of `Discovery` objects:
 *
 * ```ts
 * describeDiscoveryContract('memory', () => ({ discovery: (namespace) => memoryDiscovery(namespace) }), {
 *   settleMs: 0,
 *   assertReleased: (discovery) =>
 *     assert.deepEqual(MemoryRegistry.default.namespaces.includes(discovery.namespace), false),
 * });
 * ```
 *
 * Everything is awaited with timeouts (backends may deliver asynchronously),
 * and every test works in fresh, unique namespaces.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { firstValueFrom, timeout, type Observable } from 'rxjs';
import type { Discovery, WorkerPublisher } from '../../src/discovery/types.js';
import type { DiscoveryEvent, WorkerSnapshot } from '../../src/events/types.js';
import { PublisherClosedError } from '../../src/errors/PublisherClosedError.js';
import { WorkerNotFoundError } from '../../src/errors/WorkerNotFoundError.js';
import { sameWorker } from '../../src/model/sameWorker.js';
import type { WorkerInfo, WorkerInfoInit } from '../../src/model/types.js';
import { workerInfo } from '../../src/model/workerInfo.js';
import { collectEvents, type EventCollector } from './collectEvents.js';
import type { ChildPublisher } from './spawnChildPublisher.js';

/** What a backend's setup returns. */
export interface DiscoveryContractFixture {
  /** A discovery of the backend bound to `namespace` (a fresh, unique one per test). */
  discovery(namespace: string): Discovery;
  /** Called once after the whole suite. */
  teardown?(): void | Promise<void>;
  /**
   * A publisher of `namespace` in another process (see
   * spawnChildPublisher.ts), for the liveness test; required with the
   * `reapsDeadProcesses` option.
   */
  spawnPublisher?(namespace: string): Promise<ChildPublisher>;
}

/** Tuning of {@link describeDiscoveryContract} for a backend. */
export interface DiscoveryContractOptions {
  /**
   * After the sentinel that proves earlier events were delivered has arrived,
   * keep listening this long for stray events before asserting that nothing
   * else came. Default 50 ms; 0 suits synchronous backends.
   */
  readonly settleMs?: number;
  /** How long to wait for an expected event. Default 5000 ms. */
  readonly timeoutMs?: number;
  /** node:test timeout of each test. Default 30000 ms. */
  readonly testTimeoutMs?: number;
  /**
   * Wait this long after each subscribe before going on, for backends whose
   * subscription becomes live asynchronously. Default 0: a subscription must
   * not miss a change published after `subscribe()` returned.
   */
  readonly subscribeDelayMs?: number;
  /**
   * Backend check, run at the end of every passing test once all its
   * subscriptions are unsubscribed and its publishers closed, for each
   * discovery it used: throws (or rejects) if the backend still holds
   * anything for that discovery's namespace (listeners, watchers, timers,
   * file handles, registry entries).
   */
  readonly assertReleased?: (discovery: Discovery) => void | Promise<void>;
  /**
   * The backend's ownership rule (see `Discovery` in src/discovery/types.ts).
   * `'registrant'` (default, every backend but lan): a worker belongs to the
   * publisher that registered it; another publisher may update, re-add or
   * drop it, and only its registrant's close() withdraws it.
   * `'responder'` (lan): each publisher announces only its own workers; an
   * update of another publisher's worker rejects with WorkerNotFoundError
   * and a drop of it is a no-op.
   */
  readonly ownership?: 'registrant' | 'responder';
  /**
   * The backend withdraws the workers of a process that died without
   * closing its publisher (local: liveness; etcd: lease expiry), within
   * `withinMs`: the suite then checks that this follows the registrant.
   */
  readonly reapsDeadProcesses?: { readonly withinMs: number };
  /**
   * Makes the unique namespace of each discovery a test uses. Default
   * `c<6 hex of a per-process random><time><counter>`, lowercase alphanumerics, about 16 characters.
   */
  readonly namespace?: () => string;
}

/** Setup of a backend for {@link describeDiscoveryContract}; called once, before the suite. */
export type DiscoveryContractSetup = () => DiscoveryContractFixture | Promise<DiscoveryContractFixture>;

const GPU = (worker: WorkerInfo): boolean => worker.tags.includes('gpu');

let namespaceCounter = 0;
// Unique across the test processes node --test runs in parallel, too.
const processTag = randomUUID().slice(0, 6);
function defaultNamespace(): string {
  namespaceCounter++;
  return `c${processTag}${Date.now().toString(36)}${namespaceCounter.toString(36)}`;
}

const SHORT = { 'worker-added': 'added', 'worker-updated': 'updated', 'worker-dropped': 'dropped' } as const;

/** One test's resources: discoveries, publishers, collectors, named workers; all released at the end. */
class Scope {
  readonly #fixture: DiscoveryContractFixture;
  readonly #options: DiscoveryContractOptions;
  readonly #names = new Map<string, string>();
  readonly #discoveries: Discovery[] = [];
  readonly #publishers: WorkerPublisher[] = [];
  readonly #collectors: EventCollector[] = [];
  #sentinels = 0;

  constructor(fixture: DiscoveryContractFixture, options: DiscoveryContractOptions) {
    this.#fixture = fixture;
    this.#options = options;
  }

  /** A discovery on a fresh namespace. */
  discovery(): Discovery {
    const discovery = this.#fixture.discovery((this.#options.namespace ?? defaultNamespace)());
    this.#discoveries.push(discovery);
    return discovery;
  }

  /** Another discovery of `discovery`'s namespace (as another component or process would have). */
  twin(discovery: Discovery): Discovery {
    const twin = this.#fixture.discovery(discovery.namespace);
    this.#discoveries.push(twin);
    return twin;
  }

  publisher(discovery: Discovery): WorkerPublisher {
    const publisher = discovery.publisher();
    this.#publishers.push(publisher);
    return publisher;
  }

  async collect(events: Observable<DiscoveryEvent>): Promise<EventCollector> {
    const collector = collectEvents(events, {
      timeoutMs: this.#options.timeoutMs ?? 5000,
      describe: (event) => `${this.summary(event)} (uid ${event.worker.uid})`,
    });
    this.#collectors.push(collector);
    if ((this.#options.subscribeDelayMs ?? 0) > 0) await sleep(this.#options.subscribeDelayMs);
    return collector;
  }

  /** The first snapshot `discovery.snapshots()` emits: the complete initial state. */
  firstSnapshot(discovery: Discovery): Promise<WorkerSnapshot> {
    return firstValueFrom(discovery.snapshots().pipe(timeout(this.#options.timeoutMs ?? 5000)));
  }

  /** The names of a snapshot's workers, sorted: `['A@1', 'B@2']`. */
  names(snapshot: WorkerSnapshot): string[] {
    return [...snapshot.values()]
      .map((worker) => `${this.#names.get(worker.uid) ?? worker.uid}@${worker.version}`)
      .sort();
  }

  /** A worker named `name` in messages, with a fresh uid. */
  worker(name: string, init: Partial<WorkerInfoInit> = {}): WorkerInfo {
    const worker = workerInfo({
      uid: randomUUID(),
      address: `127.0.0.1:${20000 + this.#names.size}`,
      pid: process.pid,
      version: '1',
      ...init,
    });
    this.#names.set(worker.uid, name);
    return worker;
  }

  /** `worker` with some fields changed (same uid). */
  revise(worker: WorkerInfo, changes: Partial<WorkerInfoInit>): WorkerInfo {
    return workerInfo({ ...worker, ...changes });
  }

  /** `added A@1` for a worker-added of worker A, version 1. */
  summary(event: DiscoveryEvent): string {
    return `${SHORT[event.type]} ${this.#names.get(event.worker.uid) ?? event.worker.uid}@${event.worker.version}`;
  }

  summaries(collector: EventCollector): string[] {
    return collector.events.map((event) => this.summary(event));
  }

  /** Waits until `collector` has received at least the events summarised by `expected`, in that order. */
  async expect(collector: EventCollector, expected: readonly string[]): Promise<void> {
    await collector.waitFor(
      (events) => events.length >= expected.length,
      `${expected.length} event(s): ${expected.join(', ')}`,
    );
    assert.deepEqual(this.summaries(collector), expected);
  }

  /**
   * Proves the collectors received everything published so far: publishes a
   * sentinel worker (passing any filter) through `publisher`, waits until
   * every collector has it, then listens `settleMs` more. Returns the
   * sentinel's summary (`added S1@1`), which ends each collector's events.
   */
  async settle(publisher: WorkerPublisher, ...collectors: EventCollector[]): Promise<string> {
    this.#sentinels++;
    const name = `S${this.#sentinels}`;
    const sentinel = this.worker(name, { tags: ['gpu', 'sentinel'] });
    await publisher.publish('worker-added', sentinel);
    await Promise.all(
      collectors.map((collector) =>
        collector.waitFor((events) => events.some((event) => event.worker.uid === sentinel.uid), `sentinel ${name}`),
      ),
    );
    await sleep(this.#options.settleMs ?? 50);
    return `added ${name}@1`;
  }

  async release(passed: boolean): Promise<void> {
    for (const collector of this.#collectors) collector.unsubscribe();
    const closing = await Promise.allSettled(this.#publishers.map((publisher) => publisher.close()));
    if (!passed) return;
    for (const result of closing) if (result.status === 'rejected') throw result.reason;
    if (this.#options.assertReleased !== undefined) {
      for (const discovery of this.#discoveries) await this.#options.assertReleased(discovery);
    }
  }
}

/**
 * Declares (with node:test `describe`/`it`) the tests every discovery
 * backend must pass.
 *
 * @param name The backend's name, in the suite's title.
 * @param setup Called once before the tests; returns a factory of
 * discoveries by namespace, and an optional teardown run after them.
 * @param options Timing and backend-specific checks.
 */
export function describeDiscoveryContract(
  name: string,
  setup: DiscoveryContractSetup,
  options: DiscoveryContractOptions = {},
): void {
  describe(`${name}: discovery contract`, () => {
    let fixture: DiscoveryContractFixture | undefined;
    before(async () => {
      fixture = await setup();
    });
    after(async () => {
      await fixture?.teardown?.();
    });

    const test = (title: string, body: (scope: Scope) => Promise<void>): void => {
      it(title, { timeout: options.testTimeoutMs ?? 30_000 }, async () => {
        assert.ok(fixture, 'setup did not run');
        const scope = new Scope(fixture, options);
        let passed = false;
        try {
          await body(scope);
          passed = true;
        } finally {
          await scope.release(passed);
        }
      });
    };

    test('a late subscriber receives every current worker as worker-added, with its latest metadata', async (s) => {
      const discovery = s.discovery();
      const publisher = s.publisher(discovery);
      const a = s.worker('A');
      const b = s.worker('B', { tags: ['gpu'], extra: { zone: 'eu-1' } });
      const c = s.worker('C');
      await publisher.publish('worker-added', a);
      await publisher.publish('worker-added', b);
      await publisher.publish('worker-added', c);
      const a2 = s.revise(a, { version: '2' });
      await publisher.publish('worker-updated', a2);
      await publisher.publish('worker-dropped', c);

      const late = await s.collect(discovery.events());
      await late.waitFor((events) => events.length >= 2, 'A@2 and B@1');
      const sentinel = await s.settle(publisher, late);
      const initial = s.summaries(late).slice(0, 2).sort();
      assert.deepEqual(initial, ['added A@2', 'added B@1']);
      assert.deepEqual(s.summaries(late).slice(2), [sentinel]);
      const gotA = late.events.find((event) => event.worker.uid === a.uid);
      const gotB = late.events.find((event) => event.worker.uid === b.uid);
      assert.ok(gotA && sameWorker(gotA.worker, a2), 'A carries its updated metadata');
      assert.ok(gotB && sameWorker(gotB.worker, b), 'B carries all its metadata (tags, extra)');
    });

    test('a subscriber sees add, update and drop in order, each with the published metadata', async (s) => {
      const discovery = s.discovery();
      const publisher = s.publisher(discovery);
      const watcher = await s.collect(discovery.events());
      const a = s.worker('A', { tags: ['cpu'] });
      const a2 = s.revise(a, { version: '2', tags: ['cpu', 'big'], extra: { rack: '7' } });
      await publisher.publish('worker-added', a);
      await publisher.publish('worker-updated', a2);
      await publisher.publish('worker-dropped', a2);
      await s.expect(watcher, ['added A@1', 'updated A@2', 'dropped A@2']);
      const [added, updated, dropped] = watcher.events;
      assert.ok(added && sameWorker(added.worker, a));
      assert.ok(updated && sameWorker(updated.worker, a2));
      assert.ok(dropped && sameWorker(dropped.worker, a2));
      // Events are plain data: they survive structured cloning unchanged.
      assert.deepEqual(structuredClone(updated), updated);
      const sentinel = await s.settle(publisher, watcher);
      assert.deepEqual(s.summaries(watcher), ['added A@1', 'updated A@2', 'dropped A@2', sentinel]);
    });

    test('re-adding a registered worker is one worker-updated; an unchanged re-add emits nothing', async (s) => {
      const discovery = s.discovery();
      const publisher = s.publisher(discovery);
      const watcher = await s.collect(discovery.events());
      const a = s.worker('A');
      const a2 = s.revise(a, { version: '2' });
      await publisher.publish('worker-added', a);
      await publisher.publish('worker-added', a2);
      await s.expect(watcher, ['added A@1', 'updated A@2']);
      await publisher.publish('worker-added', a2);
      await publisher.publish('worker-updated', s.revise(a2, {}));
      const sentinel = await s.settle(publisher, watcher);
      assert.deepEqual(s.summaries(watcher), ['added A@1', 'updated A@2', sentinel]);

      const late = await s.collect(discovery.events());
      await late.waitFor((events) => events.length >= 2, 'A@2 and the sentinel');
      assert.deepEqual(s.summaries(late).sort(), ['added A@2', sentinel].sort());
    });

    test('dropping an unknown worker resolves and emits nothing', async (s) => {
      const discovery = s.discovery();
      const publisher = s.publisher(discovery);
      const watcher = await s.collect(discovery.events());
      await publisher.publish('worker-dropped', s.worker('X'));
      const a = s.worker('A');
      await publisher.publish('worker-added', a);
      await publisher.publish('worker-dropped', a);
      await publisher.publish('worker-dropped', a); // already gone
      const sentinel = await s.settle(publisher, watcher);
      assert.deepEqual(s.summaries(watcher), ['added A@1', 'dropped A@1', sentinel]);
      assert.equal(watcher.error, undefined);
    });

    test('updating an unknown worker rejects with WorkerNotFoundError and emits nothing', async (s) => {
      const discovery = s.discovery();
      const publisher = s.publisher(discovery);
      const watcher = await s.collect(discovery.events());
      const x = s.worker('X');
      const notFound = (uid: string) => (error: unknown) => {
        assert.ok(error instanceof WorkerNotFoundError, `expected WorkerNotFoundError, got ${String(error)}`);
        assert.equal(error.code, 'WOOLRX_WORKER_NOT_FOUND');
        assert.equal(error.uid, uid);
        assert.equal(error.namespace, discovery.namespace);
        return true;
      };
      await assert.rejects(publisher.publish('worker-updated', x), notFound(x.uid));
      const a = s.worker('A');
      await publisher.publish('worker-added', a);
      await publisher.publish('worker-dropped', a);
      await assert.rejects(publisher.publish('worker-updated', s.revise(a, { version: '2' })), notFound(a.uid));
      const sentinel = await s.settle(publisher, watcher);
      assert.deepEqual(s.summaries(watcher), ['added A@1', 'dropped A@1', sentinel]);
    });

    test('publishing after close rejects with PublisherClosedError; close is idempotent', async (s) => {
      const discovery = s.discovery();
      const publisher = s.publisher(discovery);
      assert.equal(publisher.namespace, discovery.namespace);
      assert.equal(publisher.closed, false);
      const a = s.worker('A');
      await publisher.publish('worker-added', a);
      await publisher.close();
      assert.equal(publisher.closed, true);
      for (const type of ['worker-added', 'worker-updated', 'worker-dropped'] as const) {
        await assert.rejects(publisher.publish(type, a), (error: unknown) => {
          assert.ok(
            error instanceof PublisherClosedError,
            `${type}: expected PublisherClosedError, got ${String(error)}`,
          );
          assert.equal(error.code, 'WOOLRX_PUBLISHER_CLOSED');
          return true;
        });
      }
      await publisher.close();
      assert.equal(publisher.closed, true);
      // Nothing was re-registered by the rejected publishes.
      const other = s.publisher(discovery);
      const late = await s.collect(discovery.events());
      const sentinel = await s.settle(other, late);
      assert.deepEqual(s.summaries(late), [sentinel]);
    });

    test('close() withdraws every worker its publisher registered, and only those', async (s) => {
      const discovery = s.discovery();
      const first = s.publisher(discovery);
      const second = s.publisher(discovery);
      const watcher = await s.collect(discovery.events());
      await first.publish('worker-added', s.worker('A'));
      await first.publish('worker-added', s.worker('B'));
      await second.publish('worker-added', s.worker('C'));
      await watcher.waitFor((events) => events.length >= 3, 'A, B and C added');
      await first.close();
      await watcher.waitFor((events) => events.length >= 5, 'A and B dropped');
      assert.deepEqual(s.summaries(watcher).slice(3).sort(), ['dropped A@1', 'dropped B@1']);
      const sentinel = await s.settle(second, watcher);
      assert.equal(
        s.summaries(watcher).length,
        6,
        `nothing but the sentinel after the drops: ${s.summaries(watcher).join(', ')}`,
      );
      assert.equal(s.summaries(watcher)[5], sentinel);

      const late = await s.collect(discovery.events());
      await late.waitFor((events) => events.length >= 2, 'C and the sentinel');
      assert.deepEqual(s.summaries(late).sort(), ['added C@1', sentinel].sort());

      // Symbol.asyncDispose (`await using`) is close().
      await second[Symbol.asyncDispose]();
      assert.equal(second.closed, true);
      await late.waitFor((events) => events.length >= 4, 'C and the sentinel dropped');
      assert.deepEqual(
        s.summaries(late).slice(2).sort(),
        ['dropped C@1', `dropped ${sentinel.slice('added '.length)}`].sort(),
      );
    });

    test('ownership: an update from another publisher changes the metadata, not the owner', async (s) => {
      const discovery = s.discovery();
      const owner = s.publisher(discovery);
      const other = s.publisher(s.twin(discovery));
      const watcher = await s.collect(discovery.events());
      const a = s.worker('A');
      await owner.publish('worker-added', a);
      await s.expect(watcher, ['added A@1']);
      if ((options.ownership ?? 'registrant') === 'registrant') {
        await other.publish('worker-updated', s.revise(a, { version: '2' }));
        await s.expect(watcher, ['added A@1', 'updated A@2']);
      } else {
        await assert.rejects(other.publish('worker-updated', s.revise(a, { version: '2' })), WorkerNotFoundError);
        await other.publish('worker-dropped', a); // not its own: a no-op
      }
      const version = (options.ownership ?? 'registrant') === 'registrant' ? '2' : '1';
      await other.close(); // owns nothing: withdraws nothing
      const sentinel = await s.settle(owner, watcher);
      assert.deepEqual(s.summaries(watcher).at(-1), sentinel);
      assert.equal(
        s.summaries(watcher).filter((line) => line.startsWith('dropped')).length,
        0,
        s.summaries(watcher).join(', '),
      );
      await owner.close(); // the registrant withdraws it
      await watcher.waitFor(
        (events) => events.some((event) => event.type === 'worker-dropped' && event.worker.uid === a.uid),
        'A dropped',
      );
      assert.ok(s.summaries(watcher).includes(`dropped A@${version}`), s.summaries(watcher).join(', '));
    });

    if ((options.ownership ?? 'registrant') === 'registrant') {
      test('ownership: re-adding a worker registered by another publisher does not take it over', async (s) => {
        const discovery = s.discovery();
        const owner = s.publisher(discovery);
        const other = s.publisher(s.twin(discovery));
        const watcher = await s.collect(discovery.events());
        const a = s.worker('A');
        await owner.publish('worker-added', a);
        await other.publish('worker-added', a); // unchanged: nothing
        await other.publish('worker-added', s.revise(a, { version: '2' })); // one update
        await other.close();
        const sentinel = await s.settle(owner, watcher);
        assert.deepEqual(s.summaries(watcher), ['added A@1', 'updated A@2', sentinel]);
        const late = await s.collect(discovery.events());
        await late.waitFor((events) => events.length >= 2, 'A and the sentinel');
        assert.deepEqual(s.summaries(late).sort(), ['added A@2', sentinel].sort());
        await owner.close();
        await watcher.waitFor((events) => events.length >= 5, 'A and the sentinel dropped');
        assert.deepEqual(
          s.summaries(watcher).slice(3).sort(),
          ['dropped A@2', `dropped ${sentinel.slice('added '.length)}`].sort(),
        );
      });
    }

    const reaping = options.reapsDeadProcesses;
    if (reaping !== undefined) {
      test('ownership: liveness follows the registrant — a dead process takes down what it registered, not what it re-added', async (s) => {
        const spawnPublisher = fixture?.spawnPublisher?.bind(fixture);
        assert.ok(spawnPublisher, "reapsDeadProcesses needs the fixture's spawnPublisher");
        const discovery = s.discovery();
        const owner = s.publisher(discovery);
        const other = s.publisher(s.twin(discovery));
        const watcher = await s.collect(discovery.events());
        const child = await spawnPublisher(discovery.namespace);
        try {
          const a = s.worker('A'); // registered here, re-added by the child
          const b = s.worker('B', { pid: child.pid }); // registered by the child, re-added here
          await owner.publish('worker-added', a);
          await child.publish('worker-added', b);
          await s.expect(watcher, ['added A@1', 'added B@1']);
          await child.publish('worker-added', s.revise(a, { version: '2', pid: child.pid }));
          await other.publish('worker-added', s.revise(b, { version: '2', pid: process.pid }));
          await s.expect(watcher, ['added A@1', 'added B@1', 'updated A@2', 'updated B@2']);
          await child.kill();
          // B's registrant is gone: B goes, though its metadata names a live process.
          await watcher.waitFor(
            (events) => events.some((event) => event.type === 'worker-dropped' && event.worker.uid === b.uid),
            'B dropped after its registrant died',
            reaping.withinMs,
          );
          // A's registrant lives: A stays, though its metadata names the dead child.
          await sleep(reaping.withinMs / 2);
          const sentinel = await s.settle(owner, watcher);
          assert.deepEqual(s.summaries(watcher), [
            'added A@1',
            'added B@1',
            'updated A@2',
            'updated B@2',
            'dropped B@2',
            sentinel,
          ]);
          const late = await s.collect(discovery.events());
          await late.waitFor((events) => events.length >= 2, 'A and the sentinel');
          assert.deepEqual(s.summaries(late).sort(), ['added A@2', sentinel].sort());
          await owner.close();
          await watcher.waitFor(
            (events) => events.some((event) => event.type === 'worker-dropped' && event.worker.uid === a.uid),
            'A dropped',
          );
        } finally {
          await child.kill();
        }
      });
    }

    test('synced: the first snapshot is the complete initial state, and an empty pool is an empty snapshot', async (s) => {
      const discovery = s.discovery();
      assert.deepEqual(s.names(await s.firstSnapshot(discovery)), [], 'an empty pool: an empty first snapshot');
      const publisher = s.publisher(discovery);
      await publisher.publish('worker-added', s.worker('A'));
      await publisher.publish('worker-added', s.worker('B', { tags: ['gpu'] }));
      const sentinel = s.worker('S', { tags: ['gpu'] });
      await publisher.publish('worker-added', sentinel);
      await s.settle(publisher, await s.collect(discovery.events()));
      const twin = s.twin(discovery);
      const first = await s.firstSnapshot(twin);
      assert.deepEqual(
        s.names(first),
        ['A@1', 'B@1', 'S1@1', 'S@1'],
        'nothing partial: every registered worker is in the first snapshot',
      );
      const gpus = await firstValueFrom(twin.snapshots(GPU).pipe(timeout(options.timeoutMs ?? 5000)));
      assert.deepEqual(s.names(gpus), ['B@1', 'S1@1', 'S@1']);
    });

    test('events(filter) emits only passing workers, turning transitions into worker-added / worker-dropped', async (s) => {
      const discovery = s.discovery();
      const publisher = s.publisher(discovery);
      const gpu = await s.collect(discovery.events(GPU));
      const a = s.worker('A', { tags: ['cpu'] });
      const b = s.worker('B', { tags: ['gpu'] });
      await publisher.publish('worker-added', a); // fails: nothing
      await publisher.publish('worker-added', b); // passes: added
      await publisher.publish('worker-updated', s.revise(a, { version: '2', tags: ['gpu'] })); // starts passing: added
      await publisher.publish('worker-updated', s.revise(b, { version: '2', tags: ['cpu'] })); // stops passing: dropped, last passing metadata
      await publisher.publish('worker-updated', s.revise(a, { version: '3', tags: ['gpu', 'big'] })); // still passing: updated
      await publisher.publish('worker-dropped', s.revise(b, { version: '2', tags: ['cpu'] })); // not passing: nothing
      await s.expect(gpu, ['added B@1', 'added A@2', 'dropped B@1', 'updated A@3']);
      const sentinel = await s.settle(publisher, gpu);
      assert.deepEqual(s.summaries(gpu), ['added B@1', 'added A@2', 'dropped B@1', 'updated A@3', sentinel]);
      const droppedB = gpu.events[2];
      assert.ok(droppedB && sameWorker(droppedB.worker, b), 'B is dropped with the metadata that last passed');

      const lateCpu = await s.collect(discovery.events((worker) => worker.tags.includes('cpu')));
      const lateGpu = await s.collect(discovery.events(GPU));
      await publisher.publish('worker-dropped', a);
      const sentinel2 = await s.settle(publisher, lateGpu);
      assert.deepEqual(s.summaries(lateGpu).slice(0, 2).sort(), ['added A@3', sentinel].sort());
      assert.deepEqual(s.summaries(lateGpu).slice(2), ['dropped A@3', sentinel2]);
      assert.deepEqual(s.summaries(lateCpu), []);
    });

    test('namespaces are isolated', async (s) => {
      const one = s.discovery();
      const two = s.discovery();
      assert.notEqual(one.namespace, two.namespace);
      const inOne = await s.collect(one.events());
      const inTwo = await s.collect(two.events());
      const publisherOne = s.publisher(one);
      const publisherTwo = s.publisher(two);
      const a = s.worker('A');
      await publisherOne.publish('worker-added', a);
      await s.expect(inOne, ['added A@1']);
      await assert.rejects(publisherTwo.publish('worker-updated', a), WorkerNotFoundError);
      await publisherTwo.publish('worker-dropped', a); // unknown in two: no-op
      const sentinel = await s.settle(publisherTwo, inTwo);
      assert.deepEqual(s.summaries(inTwo), [sentinel]);
      const sentinelOne = await s.settle(publisherOne, inOne);
      assert.deepEqual(s.summaries(inOne), ['added A@1', sentinelOne]);

      const lateTwo = await s.collect(two.events());
      await lateTwo.waitFor((events) => events.length >= 1, 'the sentinel');
      const sentinel2 = await s.settle(publisherTwo, lateTwo);
      assert.deepEqual(s.summaries(lateTwo), [sentinel, sentinel2]);
    });

    test('two discoveries of one namespace see each other', async (s) => {
      const one = s.discovery();
      const two = s.twin(one);
      assert.equal(two.namespace, one.namespace);
      const inTwo = await s.collect(two.events());
      const publisherOne = s.publisher(one);
      await publisherOne.publish('worker-added', s.worker('A'));
      await s.expect(inTwo, ['added A@1']);
      const publisherTwo = s.publisher(two);
      const b = s.worker('B');
      await publisherTwo.publish('worker-added', b);
      const inOne = await s.collect(one.events());
      await inOne.waitFor((events) => events.length >= 2, 'A and B');
      assert.deepEqual(s.summaries(inOne).sort(), ['added A@1', 'added B@1']);
      await publisherOne.close();
      await s.expect(inTwo, ['added A@1', 'added B@1', 'dropped A@1']);
      const sentinel = await s.settle(publisherTwo, inOne, inTwo);
      assert.deepEqual(s.summaries(inTwo), ['added A@1', 'added B@1', 'dropped A@1', sentinel]);
      assert.deepEqual(s.summaries(inOne).slice(2), ['dropped A@1', sentinel]);
    });

    test('two subscribers are independent: one leaving does not affect the other', async (s) => {
      const discovery = s.discovery();
      const publisher = s.publisher(discovery);
      const first = await s.collect(discovery.events());
      const second = await s.collect(discovery.events());
      await publisher.publish('worker-added', s.worker('A'));
      await s.expect(first, ['added A@1']);
      await s.expect(second, ['added A@1']);
      first.unsubscribe();
      await publisher.publish('worker-added', s.worker('B'));
      const sentinel = await s.settle(publisher, second);
      assert.deepEqual(s.summaries(second), ['added A@1', 'added B@1', sentinel]);
      assert.deepEqual(s.summaries(first), ['added A@1']);
      assert.equal(second.error, undefined);
      assert.equal(second.completed, false);
    });

    test('a subscriber that unsubscribes before any event receives nothing', async (s) => {
      const discovery = s.discovery();
      const publisher = s.publisher(discovery);
      const gone = await s.collect(discovery.events());
      gone.unsubscribe();
      const goneFiltered = await s.collect(discovery.events(GPU));
      goneFiltered.unsubscribe();
      const watcher = await s.collect(discovery.events());
      await publisher.publish('worker-added', s.worker('A', { tags: ['gpu'] }));
      await s.settle(publisher, watcher);
      assert.deepEqual(gone.events, []);
      assert.deepEqual(goneFiltered.events, []);
    });

    test('unsubscribing releases everything', async (s) => {
      const discovery = s.discovery();
      const publisher = s.publisher(discovery);
      const all = await s.collect(discovery.events());
      const gpu = await s.collect(discovery.events(GPU));
      const a = s.worker('A', { tags: ['gpu'] });
      await publisher.publish('worker-added', a);
      await s.expect(all, ['added A@1']);
      await s.expect(gpu, ['added A@1']);
      all.unsubscribe();
      gpu.unsubscribe();
      // Nothing reaches an unsubscribed stream any more.
      await publisher.publish('worker-updated', s.revise(a, { version: '2' }));
      const watcher = await s.collect(discovery.events());
      const sentinel = await s.settle(publisher, watcher);
      assert.deepEqual(s.summaries(watcher).sort(), ['added A@2', sentinel].sort());
      assert.deepEqual(s.summaries(all), ['added A@1']);
      assert.deepEqual(s.summaries(gpu), ['added A@1']);
      // The scope then unsubscribes the watcher, closes the publisher and runs
      // options.assertReleased on this discovery (as after every test).
    });

    test('publish rejects bad arguments with a TypeError and changes nothing', async (s) => {
      const discovery = s.discovery();
      const publisher = s.publisher(discovery);
      const watcher = await s.collect(discovery.events());
      const a = s.worker('A');
      await assert.rejects(publisher.publish('worker-renamed' as never, a), TypeError);
      await assert.rejects(publisher.publish('worker-added', { ...a, uid: 'not-a-uuid' }), TypeError);
      await assert.rejects(publisher.publish('worker-added', { ...a, pid: -1 }), TypeError);
      await assert.rejects(publisher.publish('worker-added', null as never), TypeError);
      const sentinel = await s.settle(publisher, watcher);
      assert.deepEqual(s.summaries(watcher), [sentinel]);
      assert.equal(publisher.closed, false);
    });
  });
}
