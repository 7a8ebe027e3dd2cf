import { describe, it } from 'node:test';
import { catchError, of, type Observable } from 'rxjs';
import { discoveryFrom } from '../src/bridge/discoveryFrom.js';
import { exposeWorkers } from '../src/bridge/exposeWorkers.js';
import type { BridgePort } from '../src/bridge/types.js';
import { SYNCED } from '../src/events/discoveryEvent.js';
import type { DiscoveryItem } from '../src/events/types.js';
import type { WorkerInfo } from '../src/model/types.js';
import { added, snapshotOf, testWorker, updated, workerTestScheduler } from '../src/testing/index.js';

const gpu = (worker: WorkerInfo): boolean => worker.tags.includes('gpu');

/**
 * Both ends of a bridge on one synchronous port (each message delivered at
 * once, through structuredClone, as a DOM port's event), so a marble frame on
 * the owner's side is the same frame on the reader's: `source` exposed, read
 * back with discoveryFrom.
 */
function bridged(source: Observable<DiscoveryItem>): ReturnType<typeof discoveryFrom> {
  const listeners: ((event: { data: unknown }) => void)[] = [];
  const port: BridgePort = {
    postMessage: (message) => {
      const data = structuredClone(message);
      for (const listener of [...listeners]) listener({ data });
    },
    addEventListener: (type: string, listener: (event: { data: unknown }) => void) => {
      if (type === 'message') listeners.push(listener);
    },
    removeEventListener: (type: string, listener: (event: { data: unknown }) => void) => {
      const index = listeners.indexOf(listener);
      if (type === 'message' && index >= 0) listeners.splice(index, 1);
    },
  };
  exposeWorkers(source, port);
  return discoveryFrom(port);
}

describe('discoveryFrom (marbles, over a synchronous port)', () => {
  it('snapshots(filter): nothing while loading, then the whole initial state at synced, then each change', () => {
    const g1 = testWorker(1, { tags: ['gpu'] });
    const c2 = testWorker(2, { tags: ['cpu'] });
    const g3 = testWorker(3, { tags: ['gpu'] });
    workerTestScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold<DiscoveryItem>('  -a-b-S--c-|', { a: added(g1), b: added(c2), S: SYNCED, c: added(g3) });
      const subs = '                        ^---------!';
      const expected = '                    -----A--B-|';
      expectObservable(bridged(source).snapshots(gpu)).toBe(expected, { A: snapshotOf(g1), B: snapshotOf(g1, g3) });
      expectSubscriptions(source.subscriptions).toBe(subs);
    });
  });

  it('an empty pool is an empty first snapshot', () => {
    workerTestScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold<DiscoveryItem>('  --S--|', { S: SYNCED });
      const subs = '                        ^----!';
      const expected = '                    --E--|';
      expectObservable(bridged(source).snapshots()).toBe(expected, { E: snapshotOf() });
      expectSubscriptions(source.subscriptions).toBe(subs);
    });
  });

  it('watch(filter) keeps synced and turns an update into the filter into worker-added', () => {
    const g1 = testWorker(1, { tags: ['gpu'] });
    const c2 = testWorker(2, { tags: ['cpu'] });
    const g2 = testWorker(2, { tags: ['gpu'] });
    workerTestScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold<DiscoveryItem>('  -a-b-S-u-|', { a: added(g1), b: added(c2), S: SYNCED, u: updated(g2) });
      const subs = '                        ^--------!';
      const expected = '                    -a---S-U-|';
      expectObservable(bridged(source).watch(gpu)).toBe(expected, { a: added(g1), S: SYNCED, U: added(g2) });
      expectSubscriptions(source.subscriptions).toBe(subs);
    });
  });

  it('an upstream error crosses; early unsubscription releases the upstream', () => {
    const g1 = testWorker(1, { tags: ['gpu'] });
    workerTestScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const failing = cold<DiscoveryItem>('  -a-S-#', { a: added(g1), S: SYNCED }, new Error('backend down'));
      const failingSubs = '                  ^----!';
      const failed = '                       ---A-(E|)';
      expectObservable(
        bridged(failing)
          .snapshots()
          .pipe(
            catchError((error: unknown) => of(error instanceof Error && error.message === 'backend down' ? 'E' : '?')),
          ),
      ).toBe(failed, { A: snapshotOf(g1), E: 'E' });
      expectSubscriptions(failing.subscriptions).toBe(failingSubs);

      const endless = cold<DiscoveryItem>('  -a-S----', { a: added(g1), S: SYNCED });
      const endlessSubs = '                  ^--!';
      const left = '                         ^--!';
      expectObservable(bridged(endless).watch(), left).toBe('-a-', { a: added(g1) });
      expectSubscriptions(endless.subscriptions).toBe(endlessSubs);
    });
  });

  it('a source that never emits keeps every stream loading', () => {
    workerTestScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold<DiscoveryItem>('  ------');
      const subs = '                        ^-----';
      expectObservable(bridged(source).snapshots()).toBe('------');
      expectSubscriptions(source.subscriptions).toBe(subs);
    });
  });
});
