import { describe, it } from 'node:test';
import { timer } from 'rxjs';
import type { WorkerInfo } from '../src/model/types.js';
import { leaseWorkers } from '../src/operators/leaseWorkers.js';
import {
  added,
  dropped,
  updated,
  testWorker as w,
  workerTestScheduler as testScheduler,
} from '../src/testing/index.js';
import { leaseCaller } from './leaseCaller.js';

// Each caller's line (see leaseCaller): the worker it was handed, then X / U / C
// (lost: dropped / updated out / the pool ended) or r (released); Q: refused
// (the pool ended); B: its predicate threw.

const gpu = (worker: WorkerInfo): boolean => worker.tags.includes('gpu');
const cpu = (worker: WorkerInfo): boolean => worker.tags.includes('cpu');

describe('leaseWorkers (marbles)', () => {
  it('leases each worker to one caller at a time, first come first served; release() hands it to the next in line', () => {
    const g1 = w(1, { tags: ['gpu'] });
    const c2 = w(2, { tags: ['cpu'] });
    const names = new Map([
      [g1, 'a'],
      [c2, 'c'],
    ]);
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('    -a-c----------', { a: added(g1), c: added(c2) });
      const sourceSubs = '     ^-------------';
      const first = '          -a---(r|)';
      const secondSub = '      --^';
      const second = '         -----a--------';
      const any = '            ---c----------';
      const pool = leaseWorkers(source);
      expectObservable(leaseCaller(pool, names, gpu, 4)).toBe(first);
      // Joins the line before `a` is released: gets it the moment it is.
      expectObservable(leaseCaller(pool, names, gpu), secondSub).toBe(second);
      // In line from the start, but behind the GPU caller for `a`: takes `c`.
      expectObservable(leaseCaller(pool, names, () => true)).toBe(any);
      expectSubscriptions(source.subscriptions).toBe(sourceSubs);
    });
  });

  it("a dropped worker fires its lease's lost, is not given back by release(), and is never handed out again", () => {
    const g1 = w(1, { tags: ['gpu'] });
    const g1again = w(1, { tags: ['gpu'], version: '2.0.0' });
    const g3 = w(3, { tags: ['gpu'] });
    const names = new Map([
      [g1, 'a'],
      [g1again, 'b'],
      [g3, 'g'],
    ]);
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('    -a-g-x-y---b----', {
        a: added(g1),
        g: added(g3),
        x: dropped(g1),
        y: dropped(g3),
        b: added(g1again),
      });
      const sourceSubs = '     ^---------------';
      const holder = '         -a---X-(r|)';
      const oneSub = '         --^';
      // Waiting for worker 1 when its lease is released after its drop: gets it only when it is re-added.
      const one = '            -----------b----';
      const threeSub = '       --------^';
      // g3 was available, then dropped before anyone asked for it.
      const three = '          ----------------';
      const pool = leaseWorkers(source);
      expectObservable(leaseCaller(pool, names, gpu, 6)).toBe(holder);
      expectObservable(
        leaseCaller(pool, names, (worker) => worker.uid === g1.uid),
        oneSub,
      ).toBe(one);
      expectObservable(
        leaseCaller(pool, names, (worker) => worker.uid === g3.uid),
        threeSub,
      ).toBe(three);
      expectSubscriptions(source.subscriptions).toBe(sourceSubs);
    });
  });

  it('an update out of the predicate fires lost; release() gives the worker back with its latest metadata', () => {
    const g1 = w(1, { tags: ['gpu'] });
    const g1v2 = w(1, { tags: ['gpu'], version: '2.0.0' });
    const c1 = w(1, { tags: ['cpu'], version: '3.0.0' });
    const names = new Map([
      [g1, 'a'],
      [g1v2, 'A'],
      [c1, 'v'],
    ]);
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('    -a-u-d--------', { a: added(g1), u: updated(g1v2), d: updated(c1) });
      const sourceSubs = '     ^-------------';
      // u still passes: nothing; d does not: lost.
      const holder = '         -a---U-(r|)';
      const cpuSub = '         --^';
      const cpuCaller = '      -------v------';
      const pool = leaseWorkers(source);
      expectObservable(leaseCaller(pool, names, gpu, 6)).toBe(holder);
      expectObservable(leaseCaller(pool, names, cpu), cpuSub).toBe(cpuCaller);
      expectSubscriptions(source.subscriptions).toBe(sourceSubs);
    });
  });

  it('a failing source ends the pool: leases are lost, pending and later acquires are refused, the source released', () => {
    const g1 = w(1, { tags: ['gpu'] });
    const names = new Map([[g1, 'a']]);
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('    -a----#', { a: added(g1) });
      const sourceSubs = '     ^-----!';
      const holder = '         -a----(C|)';
      const pendingSub = '     --^';
      const pending = '        ------(Q|)';
      const lateSub = '        --------^';
      const late = '           --------(Q|)';
      const pool = leaseWorkers(source);
      expectObservable(leaseCaller(pool, names, gpu)).toBe(holder);
      expectObservable(leaseCaller(pool, names, gpu), pendingSub).toBe(pending);
      expectObservable(leaseCaller(pool, names, gpu), lateSub).toBe(late);
      expectSubscriptions(source.subscriptions).toBe(sourceSubs);
    });
  });

  it('a throwing predicate fails its own caller only (the worker stays for the others); on an update it loses the lease', () => {
    const g1 = w(1, { tags: ['gpu'] });
    const g1v2 = w(1, { tags: ['gpu'], version: '2.0.0' });
    const names = new Map([
      [g1, 'a'],
      [g1v2, 'A'],
    ]);
    const boom = (): boolean => {
      throw new Error('boom');
    };
    const firstVersionOnly = (worker: WorkerInfo): boolean => {
      if (worker.version !== '1.0.0') throw new Error('boom');
      return true;
    };
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('    -a---u------', { a: added(g1), u: updated(g1v2) });
      const sourceSubs = '     ^-----------';
      const throwing = '       -(B|)';
      const holder = '         -a---(U|)';
      const pool = leaseWorkers(source);
      expectObservable(leaseCaller(pool, names, boom)).toBe(throwing);
      expectObservable(leaseCaller(pool, names, firstVersionOnly)).toBe(holder);
      expectSubscriptions(source.subscriptions).toBe(sourceSubs);
    });
  });

  it('a caller that leaves the line early gets nothing; close() releases the source, loses leases and refuses acquires', () => {
    const g1 = w(1, { tags: ['gpu'] });
    const names = new Map([[g1, 'a']]);
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('    -----a----------', { a: added(g1) });
      const sourceSubs = '     ^------!';
      const leaverSub = '      ^--!';
      const leaver = '         ----------------';
      const stayerSub = '      -^';
      const stayer = '         -----a-(C|)';
      const pending = '        -------(Q|)';
      const pool = leaseWorkers(source);
      expectObservable(leaseCaller(pool, names, gpu), leaverSub).toBe(leaver);
      expectObservable(leaseCaller(pool, names, gpu), stayerSub).toBe(stayer);
      expectObservable(leaseCaller(pool, names, cpu)).toBe(pending);
      timer(7).subscribe(() => pool.close());
      expectSubscriptions(source.subscriptions).toBe(sourceSubs);
    });
  });

  it('an empty source ends the pool at once; a source that never emits keeps callers waiting', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const empty = cold<never>('  |');
      const emptySubs = '          (^!)';
      const refused = '            (Q|)';
      const never = cold<never>('  -');
      const neverSubs = '          ^';
      const waiting = '            ----';
      const names = new Map<WorkerInfo, string>();
      expectObservable(leaseCaller(leaseWorkers(empty), names, gpu)).toBe(refused);
      expectObservable(leaseCaller(leaseWorkers(never), names, gpu)).toBe(waiting);
      expectSubscriptions(empty.subscriptions).toBe(emptySubs);
      expectSubscriptions(never.subscriptions).toBe(neverSubs);
    });
  });
});
