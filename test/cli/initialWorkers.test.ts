// initialWorkers (woolrx list's wait): the complete initial state, or a
// BackendUnreachable error once the backend has failed to answer for the
// whole timeout — and never a cut-short read of a backend that answers.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EMPTY, type Observable } from 'rxjs';
import { BackendUnreachable } from '../../src/cli/BackendUnreachable.js';
import { initialWorkers } from '../../src/cli/initialWorkers.js';
import type { Discovery, DiscoveryDiagnostic } from '../../src/discovery/types.js';
import { SYNCED } from '../../src/events/discoveryEvent.js';
import type { DiscoveryItem } from '../../src/events/types.js';
import { added, dropped, testWorker, workerTestScheduler } from '../../src/testing/index.js';

const down: DiscoveryDiagnostic = {
  kind: 'warning',
  namespace: 'pool',
  message: 'etcd read failed',
  error: new Error('ECONNREFUSED'),
};
const note: DiscoveryDiagnostic = { kind: 'warning', namespace: 'pool', message: 'compacted; re-reading' };
const back: DiscoveryDiagnostic = { kind: 'recovered', namespace: 'pool', message: 'watching again' };

function discoveryOf(items: Observable<DiscoveryItem>, diagnostics: Observable<DiscoveryDiagnostic>): Discovery {
  return {
    namespace: 'pool',
    watch: () => items,
    events: () => EMPTY,
    snapshots: () => EMPTY,
    diagnostics,
    publisher: () => assert.fail('no publisher'),
  };
}

describe('initialWorkers', () => {
  it('emits the workers of the initial state at synced (drops applied), then completes', () => {
    const w1 = testWorker(1);
    const w2 = testWorker(2);
    workerTestScheduler().run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const items = cold<DiscoveryItem>('-a-b-c-S-a', { a: added(w1), b: added(w2), c: dropped(w1), S: SYNCED });
      const diagnostics = hot<DiscoveryDiagnostic>('--');
      expectObservable(initialWorkers(discoveryOf(items, diagnostics), { timeoutMs: 5 })).toBe('-------(W|)', {
        W: [w2],
      });
      expectSubscriptions(items.subscriptions).toBe('^------!');
    });
  });

  it('errors at the deadline while a failure is outstanding', () => {
    workerTestScheduler().run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const items = cold<DiscoveryItem>('-');
      const diagnostics = hot<DiscoveryDiagnostic>('--d-d-d-d-d-d', { d: down });
      expectObservable(initialWorkers(discoveryOf(items, diagnostics), { timeoutMs: 10 })).toBe(
        '----------#',
        undefined,
        new BackendUnreachable(down, 10),
      );
      expectSubscriptions(items.subscriptions).toBe('^---------!');
    });
  });

  it('does not give up after a recovery, nor for warnings without an error; a failure after the deadline ends it at once', () => {
    workerTestScheduler().run(({ cold, hot, expectObservable }) => {
      const items = cold<DiscoveryItem>('-');
      const diagnostics = hot<DiscoveryDiagnostic>('--d--r--n--------d', { d: down, r: back, n: note });
      expectObservable(initialWorkers(discoveryOf(items, diagnostics), { timeoutMs: 10 })).toBe(
        '-----------------#',
        undefined,
        new BackendUnreachable(down, 10),
      );
    });
  });

  it('waits past the deadline for a backend that answers (a large read), and never without a timeout', () => {
    const w1 = testWorker(1);
    workerTestScheduler().run(({ cold, hot, expectObservable }) => {
      const items = cold<DiscoveryItem>('--------------------a(S|)', { a: added(w1), S: SYNCED });
      const diagnostics = hot<DiscoveryDiagnostic>('--d-r', { d: down, r: back });
      expectObservable(initialWorkers(discoveryOf(items, diagnostics), { timeoutMs: 10 })).toBe(
        '---------------------(W|)',
        { W: [w1] },
      );
      expectObservable(initialWorkers(discoveryOf(cold('-'), hot('d', { d: down })))).toBe('-');
    });
  });

  it('an empty pool is an empty list', () => {
    workerTestScheduler().run(({ cold, hot, expectObservable }) => {
      expectObservable(initialWorkers(discoveryOf(cold('S', { S: SYNCED }), hot('-')), { timeoutMs: 10 })).toBe(
        '(W|)',
        { W: [] },
      );
    });
  });
});
