// The marble diagrams of the operator docs: one definition per picture.
//
// Each diagram holds the marble strings that are drawn (scripts/docs/renderMarbles.ts
// turns them into docs/images/marbles/<name>.svg) and a `verify` that runs the real
// operator on those very strings in a TestScheduler (marbles/diagrams.spec.ts), so a
// picture can only show behaviour the operator really has.
//
// Marble strings here carry no leading spaces: in `run` mode every other character
// is one frame, so the character index is the frame the renderer draws it at.
import assert from 'node:assert/strict';
import type { RunHelpers } from 'rxjs/testing';
import { PredicatedQueue } from '../src/operators/PredicatedQueue.js';
import { leaseWorkers } from '../src/operators/leaseWorkers.js';
import { diffSnapshots } from '../src/operators/diffSnapshots.js';
import { expireWorkers } from '../src/operators/expireWorkers.js';
import { filterWorkers } from '../src/operators/filterWorkers.js';
import { shareWorkers } from '../src/operators/shareWorkers.js';
import { toSnapshots } from '../src/operators/toSnapshots.js';
import { added, dropped, snapshotOf as snap, testWorker as w, updated } from '../src/testing/index.js';
import { leaseCaller } from './leaseCaller.js';

/** What a value stands for, which picks its colour in the picture. */
export type Tone = 'added' | 'updated' | 'dropped' | 'snapshot' | 'item';

/** One entry of a diagram's legend: the marble letter and what it stands for. */
export interface LegendEntry {
  readonly key: string;
  readonly text: string;
  readonly tone: Tone;
}

/** One timeline of a diagram. */
export interface MarbleLine {
  /** Drawn left of the timeline. */
  readonly label: string;
  /** Notifications: `-` a frame, a letter a value, `(…)` one frame's group, `|` complete, `#` error. */
  readonly marbles: string;
  /** Subscription frames (`^` subscribe, `!` unsubscribe); the subscribed span is drawn bold. */
  readonly subscription?: string;
  /** Inputs are drawn above the operator box, outputs below it. */
  readonly role: 'input' | 'output';
  /**
   * What the line's letters stand for (the value map given to the
   * TestScheduler); the diagram spec checks each letter's legend tone
   * against it (an event's type, a snapshot).
   */
  readonly values?: Readonly<Record<string, unknown>>;
}

/** A marble diagram: what is drawn, and the check that the operator really behaves so. */
export interface MarbleDiagram {
  readonly name: string;
  readonly title: string;
  /** The text of the operator box between inputs and outputs. */
  readonly operator: string;
  readonly lines: readonly MarbleLine[];
  readonly legend: readonly LegendEntry[];
  /** Runs the real operator on `lines` inside `TestScheduler.run`, asserting every output line. */
  verify(helpers: RunHelpers): void;
}

function lineOf(lines: readonly MarbleLine[], label: string): MarbleLine {
  const line = lines.find((l) => l.label === label);
  assert.ok(line, `no line labelled ${label}`);
  return line;
}

function subscriptionOf(line: MarbleLine): string {
  assert.ok(line.subscription !== undefined, `line ${line.label} has no subscription marbles`);
  return line.subscription;
}

const diffSnapshotsDiagram = ((): MarbleDiagram => {
  const w1 = w(1);
  const w2 = w(2);
  const w2v2 = w(2, { version: '2.0.0' });
  const w3 = w(3);
  const inputs = { a: snap(w1, w2), b: snap(w2v2, w3), c: snap(w3) };
  const outputs = { x: added(w1), y: added(w2), d: dropped(w1), p: updated(w2v2), z: added(w3), q: dropped(w2v2) };
  // One row per marble line, so the rows read as the picture they draw.
  // prettier-ignore
  const lines: MarbleLine[] = [
    { label: 'snapshots', marbles: '-a------b------c--|', subscription: '^-----------------!', role: 'input', values: inputs },
    { label: 'events', marbles: '-(xy)---(dpz)--q--|', role: 'output', values: outputs },
  ];
  return {
    name: 'diffSnapshots',
    title: 'diffSnapshots(): from snapshots of the current workers to the events between them',
    operator: 'diffSnapshots()',
    lines,
    legend: [
      { key: 'a', text: 'snapshot { 1, 2 }', tone: 'snapshot' },
      { key: 'b', text: 'snapshot { 2′, 3 } (2′: 2 at version 2.0.0)', tone: 'snapshot' },
      { key: 'c', text: 'snapshot { 3 }', tone: 'snapshot' },
      { key: 'x', text: 'worker-added 1', tone: 'added' },
      { key: 'y', text: 'worker-added 2', tone: 'added' },
      { key: 'd', text: 'worker-dropped 1', tone: 'dropped' },
      { key: 'p', text: 'worker-updated 2′', tone: 'updated' },
      { key: 'z', text: 'worker-added 3', tone: 'added' },
      { key: 'q', text: 'worker-dropped 2′', tone: 'dropped' },
    ],
    verify({ cold, expectObservable, expectSubscriptions }) {
      const input = lineOf(lines, 'snapshots');
      const source = cold(input.marbles, inputs);
      expectObservable(source.pipe(diffSnapshots())).toBe(lineOf(lines, 'events').marbles, outputs);
      expectSubscriptions(source.subscriptions).toBe(subscriptionOf(input));
    },
  };
})();

const toSnapshotsDiagram = ((): MarbleDiagram => {
  const w1 = w(1);
  const w1v2 = w(1, { version: '2.0.0' });
  const w2 = w(2);
  const inputs = { a: added(w1), b: added(w2), c: updated(w1v2), d: dropped(w2) };
  const outputs = { A: snap(w1), B: snap(w1v2, w2), C: snap(w1v2) };
  const lines: MarbleLine[] = [
    { label: 'events', marbles: '-a--(bc)--d--|', subscription: '^------------!', role: 'input', values: inputs },
    { label: 'snapshots', marbles: '-A--B-----C--|', role: 'output', values: outputs },
  ];
  return {
    name: 'toSnapshots',
    title: 'toSnapshots(): one snapshot of the current workers per synchronous burst of events',
    operator: 'toSnapshots()',
    lines,
    legend: [
      { key: 'a', text: 'worker-added 1', tone: 'added' },
      { key: 'b', text: 'worker-added 2', tone: 'added' },
      { key: 'c', text: 'worker-updated 1′ (1 at version 2.0.0)', tone: 'updated' },
      { key: 'd', text: 'worker-dropped 2', tone: 'dropped' },
      { key: 'A', text: 'snapshot { 1 }', tone: 'snapshot' },
      { key: 'B', text: 'snapshot { 1′, 2 }', tone: 'snapshot' },
      { key: 'C', text: 'snapshot { 1′ }', tone: 'snapshot' },
    ],
    verify({ cold, expectObservable, expectSubscriptions }) {
      const input = lineOf(lines, 'events');
      const source = cold(input.marbles, inputs);
      expectObservable(source.pipe(toSnapshots())).toBe(lineOf(lines, 'snapshots').marbles, outputs);
      expectSubscriptions(source.subscriptions).toBe(subscriptionOf(input));
    },
  };
})();

const filterWorkersDiagram = ((): MarbleDiagram => {
  const w1 = w(1, { tags: ['gpu'] });
  const w1cpu = w(1, { tags: ['cpu'] });
  const w2 = w(2, { tags: ['cpu'] });
  const w2gpu = w(2, { tags: ['gpu'] });
  const inputs = { a: added(w1), b: added(w2), c: updated(w2gpu), d: updated(w1cpu), e: dropped(w2gpu) };
  const outputs = { a: added(w1), C: added(w2gpu), D: dropped(w1), e: dropped(w2gpu) };
  const lines: MarbleLine[] = [
    { label: 'events', marbles: '-a--b--c--d--e--|', subscription: '^---------------!', role: 'input', values: inputs },
    { label: 'gpu workers', marbles: '-a-----C--D--e--|', role: 'output', values: outputs },
  ];
  return {
    name: 'filterWorkers',
    title: 'filterWorkers(p): workers that start or stop passing p are added or dropped',
    operator: "filterWorkers((w) => w.tags.includes('gpu'))",
    lines,
    legend: [
      { key: 'a', text: 'worker-added 1 [gpu]', tone: 'added' },
      { key: 'b', text: 'worker-added 2 [cpu]', tone: 'added' },
      { key: 'c', text: 'worker-updated 2 [gpu]', tone: 'updated' },
      { key: 'd', text: 'worker-updated 1 [cpu]', tone: 'updated' },
      { key: 'e', text: 'worker-dropped 2 [gpu]', tone: 'dropped' },
      { key: 'C', text: 'worker-added 2 [gpu]: starts passing', tone: 'added' },
      { key: 'D', text: 'worker-dropped 1 [gpu]: stops passing (last passing metadata)', tone: 'dropped' },
    ],
    verify({ cold, expectObservable, expectSubscriptions }) {
      const input = lineOf(lines, 'events');
      const source = cold(input.marbles, inputs);
      const gpu = filterWorkers((worker) => worker.tags.includes('gpu'));
      expectObservable(source.pipe(gpu)).toBe(lineOf(lines, 'gpu workers').marbles, outputs);
      expectSubscriptions(source.subscriptions).toBe(subscriptionOf(input));
    },
  };
})();

const predicatedQueueDiagram = ((): MarbleDiagram => {
  const isUpper = (item: string): boolean => item === item.toUpperCase();
  const any = (): boolean => true;
  const lines: MarbleLine[] = [
    { label: 'queue.tryPut', marbles: '--a--B--C--|', subscription: '^----------!', role: 'input' },
    { label: 'take(upper, 1)', marbles: '-----(B|)', subscription: '^', role: 'output' },
    { label: 'take(any, 2)', marbles: '--a-----(C|)', subscription: '-^', role: 'output' },
    { label: 'take(any, 1)', marbles: '-----------|', subscription: '---^', role: 'output' },
  ];
  return {
    name: 'PredicatedQueue',
    title: 'PredicatedQueue.take(p, n): each item goes to the earliest taker that accepts it',
    operator: 'queue.take(p, n)',
    lines,
    legend: [
      { key: 'a', text: 'an item only the any-takers accept', tone: 'item' },
      { key: 'B', text: 'an upper-case item: every taker accepts it', tone: 'item' },
      { key: 'C', text: 'an upper-case item', tone: 'item' },
    ],
    verify({ cold, expectObservable, expectSubscriptions }) {
      const queue = new PredicatedQueue<string>();
      const input = lineOf(lines, 'queue.tryPut');
      const puts = cold<string>(input.marbles);
      puts.subscribe({
        next: (item) => assert.equal(queue.tryPut(item), true, `tryPut(${item})`),
        complete: () => queue.close(),
        error: (err: unknown) => queue.error(err),
      });
      const upper = lineOf(lines, 'take(upper, 1)');
      const two = lineOf(lines, 'take(any, 2)');
      const late = lineOf(lines, 'take(any, 1)');
      expectObservable(queue.take(isUpper), subscriptionOf(upper)).toBe(upper.marbles);
      expectObservable(queue.take(any, 2), subscriptionOf(two)).toBe(two.marbles);
      expectObservable(queue.take(any), subscriptionOf(late)).toBe(late.marbles);
      expectSubscriptions(puts.subscriptions).toBe(subscriptionOf(input));
    },
  };
})();

const leaseWorkersDiagram = ((): MarbleDiagram => {
  const w1 = w(1, { tags: ['gpu'] });
  const w2 = w(2, { tags: ['gpu'] });
  const inputs = { a: added(w1), b: added(w2), x: dropped(w1) };
  const names = new Map([
    [w1, 'a'],
    [w2, 'b'],
  ]);
  const gpu = (worker: { tags: readonly string[] }): boolean => worker.tags.includes('gpu');
  const lines: MarbleLine[] = [
    { label: 'events$', marbles: '-a-b------x----', subscription: '^--------------', role: 'input', values: inputs },
    { label: 'acquire(gpu) 1st', marbles: '-a--------(X|)', subscription: '^', role: 'output' },
    { label: 'acquire(gpu) 2nd', marbles: '---b---(r|)', subscription: '-^', role: 'output' },
    { label: 'acquire(gpu) 3rd', marbles: '-------b-------', subscription: '--^', role: 'output' },
  ];
  return {
    name: 'leaseWorkers',
    title: 'leaseWorkers(events$): each worker to one caller at a time, in line; a drop fires lost',
    operator: 'pool.acquire(p)',
    lines,
    legend: [
      { key: 'a', text: "worker 1 (gpu) added; on a caller's line: its lease of worker 1", tone: 'added' },
      { key: 'b', text: "worker 2 (gpu) added; on a caller's line: its lease of worker 2", tone: 'added' },
      { key: 'x', text: 'worker 1 dropped', tone: 'dropped' },
      { key: 'r', text: 'the caller releases its lease: the next in line gets the worker', tone: 'item' },
      { key: 'X', text: "the lease's lost signal fires: its worker was dropped", tone: 'item' },
    ],
    verify({ cold, expectObservable, expectSubscriptions }) {
      const input = lineOf(lines, 'events$');
      const source = cold(input.marbles, inputs);
      const pool = leaseWorkers(source);
      const first = lineOf(lines, 'acquire(gpu) 1st');
      const second = lineOf(lines, 'acquire(gpu) 2nd');
      const third = lineOf(lines, 'acquire(gpu) 3rd');
      expectObservable(leaseCaller(pool, names, gpu), subscriptionOf(first)).toBe(first.marbles);
      expectObservable(leaseCaller(pool, names, gpu, 4), subscriptionOf(second)).toBe(second.marbles);
      expectObservable(leaseCaller(pool, names, gpu), subscriptionOf(third)).toBe(third.marbles);
      expectSubscriptions(source.subscriptions).toBe(subscriptionOf(input));
    },
  };
})();

const shareWorkersDiagram = ((): MarbleDiagram => {
  const w1 = w(1);
  const w2 = w(2);
  const w2v2 = w(2, { version: '2.0.0' });
  const w3 = w(3);
  const values = {
    a: added(w1),
    b: added(w2),
    c: added(w3),
    u: updated(w2v2),
    v: added(w2v2),
    x: dropped(w1),
  };
  // One row per marble line, so the rows read as the picture they draw.
  // prettier-ignore
  const lines: MarbleLine[] = [
    { label: 'source', marbles: '--a---b---x------u----c--|', subscription: '^------------------------!', role: 'input', values },
    { label: 'subscriber 1', marbles: '--a---b---x------u-', subscription: '^-----------------!', role: 'output', values },
    { label: 'subscriber 2', marbles: '------------b----u----c--|', subscription: '------------^', role: 'output', values },
    { label: 'subscriber 3', marbles: '-------------------v--c--|', subscription: '-------------------^', role: 'output', values },
  ];
  return {
    name: 'shareWorkers',
    title: 'shareWorkers(): one source subscription; a late subscriber first gets the current workers',
    operator: 'shareWorkers()',
    lines,
    legend: [
      { key: 'a', text: 'worker-added 1', tone: 'added' },
      { key: 'b', text: 'worker-added 2', tone: 'added' },
      { key: 'x', text: 'worker-dropped 1', tone: 'dropped' },
      { key: 'u', text: 'worker-updated 2′ (2 at version 2.0.0)', tone: 'updated' },
      { key: 'c', text: 'worker-added 3', tone: 'added' },
      { key: 'v', text: 'worker-added 2′: the current set, replayed as adds', tone: 'added' },
    ],
    verify({ cold, expectObservable, expectSubscriptions }) {
      const input = lineOf(lines, 'source');
      const source = cold(input.marbles, values);
      const shared = source.pipe(shareWorkers());
      for (const line of lines.filter((l) => l.role === 'output')) {
        expectObservable(shared, subscriptionOf(line)).toBe(line.marbles, values);
      }
      expectSubscriptions(source.subscriptions).toBe(subscriptionOf(input));
    },
  };
})();

const expireWorkersDiagram = ((): MarbleDiagram => {
  const w1 = w(1);
  const w2 = w(2);
  const w2v2 = w(2, { version: '2.0.0' });
  // Inputs and outputs use different letters: a sighting's event type is not
  // the type of what it becomes (b: updated in, added out), and a letter has
  // one colour.
  const inputs = { a: added(w1), b: updated(w2), c: added(w2v2) };
  const outputs = { A: added(w1), B: added(w2), C: updated(w2v2), D: dropped(w1), E: dropped(w2v2) };
  // One row per marble line, so the rows read as the picture they draw.
  // prettier-ignore
  const lines: MarbleLine[] = [
    { label: 'sightings', marbles: '-a-b-a-c--------|', subscription: '^---------------!', role: 'input', values: inputs },
    { label: 'events', marbles: '-A-B---C--D-E---|', role: 'output', values: outputs },
  ];
  return {
    name: 'expireWorkers',
    title: 'expireWorkers(ttl): a worker not sighted again within ttl is dropped',
    operator: 'expireWorkers(5)',
    lines,
    legend: [
      { key: 'a', text: 'sighting of 1 (worker-added; the same metadata both times)', tone: 'added' },
      { key: 'b', text: 'sighting of 2 as worker-updated', tone: 'updated' },
      { key: 'c', text: 'sighting of 2′ (changed metadata) as worker-added', tone: 'added' },
      { key: 'A', text: 'worker-added 1: first sighting (the second one emits nothing)', tone: 'added' },
      { key: 'B', text: 'worker-added 2: first sighting, whatever its type', tone: 'added' },
      { key: 'C', text: 'worker-updated 2′: the metadata changed', tone: 'updated' },
      { key: 'D', text: 'worker-dropped 1, 5 frames after its last sighting', tone: 'dropped' },
      { key: 'E', text: 'worker-dropped 2′, 5 frames after its last sighting', tone: 'dropped' },
    ],
    verify({ cold, expectObservable, expectSubscriptions }) {
      const input = lineOf(lines, 'sightings');
      const source = cold(input.marbles, inputs);
      expectObservable(source.pipe(expireWorkers(5))).toBe(lineOf(lines, 'events').marbles, outputs);
      expectSubscriptions(source.subscriptions).toBe(subscriptionOf(input));
    },
  };
})();

/** Every operator diagram of the docs, in the order docs/operators.md presents them. */
export const diagrams: readonly MarbleDiagram[] = [
  leaseWorkersDiagram,
  diffSnapshotsDiagram,
  toSnapshotsDiagram,
  filterWorkersDiagram,
  predicatedQueueDiagram,
  shareWorkersDiagram,
  expireWorkersDiagram,
];
