import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { discoveryEvent } from '../../../src/events/discoveryEvent.js';
import { workerInfo } from '../../../src/model/workerInfo.js';
import type { WorkerInfoInit } from '../../../src/model/types.js';
import { applyTableEvent } from '../../../src/cli/table/applyTableEvent.js';
import { formatDuration } from '../../../src/cli/table/formatDuration.js';
import { LiveTable } from '../../../src/cli/table/LiveTable.js';
import { redrawFrame } from '../../../src/cli/table/redrawFrame.js';
import { renderTable } from '../../../src/cli/table/renderTable.js';
import { safeCell } from '../../../src/cli/table/safeCell.js';
import { tagCounts } from '../../../src/cli/table/tagCounts.js';
import type { TableState } from '../../../src/cli/table/types.js';

function worker(n: number, init: Partial<WorkerInfoInit> = {}) {
  return workerInfo({
    uid: `${String(n).repeat(8).slice(0, 8)}-0000-4000-8000-000000000000`,
    address: `127.0.0.1:${50050 + n}`,
    pid: 1000 + n,
    version: '1.2.3',
    ...init,
  });
}

const T0 = 1_700_000_000_000;

function stateOf(...events: [ReturnType<typeof discoveryEvent>, number][]): TableState {
  let state: TableState = new Map();
  for (const [event, at] of events) state = applyTableEvent(state, event, at);
  return state;
}

describe('applyTableEvent', () => {
  it('adds, updates (keeping the added time and the row order) and drops; the old state is untouched', () => {
    const empty: TableState = new Map();
    const one = applyTableEvent(empty, discoveryEvent('worker-added', worker(1)), T0);
    const two = applyTableEvent(one, discoveryEvent('worker-added', worker(2)), T0 + 1000);
    const updated = applyTableEvent(two, discoveryEvent('worker-updated', worker(1, { tags: ['gpu'] })), T0 + 5000);
    assert.equal(empty.size, 0);
    assert.equal(one.size, 1);
    assert.deepEqual([...updated.keys()], [worker(1).uid, worker(2).uid]);
    assert.deepEqual(updated.get(worker(1).uid), {
      worker: worker(1, { tags: ['gpu'] }),
      addedAt: T0,
      lastType: 'worker-updated',
      lastAt: T0 + 5000,
    });
    assert.equal(two.get(worker(1).uid)?.lastType, 'worker-added');
    const dropped = applyTableEvent(updated, discoveryEvent('worker-dropped', worker(1)), T0 + 6000);
    assert.deepEqual([...dropped.keys()], [worker(2).uid]);
  });

  it('an update of an unknown worker adds its row', () => {
    const state = applyTableEvent(new Map(), discoveryEvent('worker-updated', worker(3)), T0);
    assert.equal(state.get(worker(3).uid)?.addedAt, T0);
  });
});

describe('formatDuration, safeCell, tagCounts', () => {
  it('formats durations', () => {
    assert.deepEqual([-5, 0, 999, 59_999, 60_000, 65_000, 3_599_000, 3_720_000].map(formatDuration), [
      '0s',
      '0s',
      '0s',
      '59s',
      '1m00s',
      '1m05s',
      '59m59s',
      '1h02m',
    ]);
  });

  it('escapes control characters only', () => {
    assert.equal(safeCell('eu-1 ü'), 'eu-1 ü');
    assert.equal(safeCell('a\u001b[2Jb\nc\u0085'), 'a\\u001b[2Jb\\u000ac\\u0085');
  });

  it('counts workers by tag, untagged under the empty string', () => {
    const state = stateOf(
      [discoveryEvent('worker-added', worker(1, { tags: ['gpu', 'cpu'] })), T0],
      [discoveryEvent('worker-added', worker(2, { tags: ['cpu'] })), T0],
      [discoveryEvent('worker-added', worker(3)), T0],
    );
    assert.deepEqual(tagCounts(state), [
      ['', 1],
      ['cpu', 2],
      ['gpu', 1],
    ]);
  });
});

describe('renderTable', () => {
  const state = stateOf(
    [discoveryEvent('worker-added', worker(1, { tags: ['gpu'], extra: { zone: 'eu-1' } })), T0],
    [discoveryEvent('worker-added', worker(2, { tags: ['cpu', 'gpu'] })), T0 + 2000],
    [discoveryEvent('worker-updated', worker(1, { tags: ['gpu'], extra: { zone: 'us-2' } })), T0 + 4000],
  );

  it('renders title, aligned header and rows, counts by tag and notes', () => {
    const lines = renderTable(state, { width: 200, now: T0 + 65_000, title: 'namespace pool', notes: ['killed one'] });
    assert.deepEqual(lines, [
      'namespace pool',
      'UID      ADDRESS          PID VERSION TAGS     SEEN LAST EVENT        EXTRA',
      '11111111 127.0.0.1:50051 1001 1.2.3   gpu     1m05s updated 1m01s ago zone=us-2',
      '22222222 127.0.0.1:50052 1002 1.2.3   cpu,gpu 1m03s added 1m03s ago   -',
      '2 workers · cpu 1 · gpu 2',
      'killed one',
    ]);
  });

  it('cuts every line to the width, with an ellipsis', () => {
    const lines = renderTable(state, { width: 30, now: T0 + 5000 });
    assert.ok(
      lines.every((line) => line.length <= 30),
      lines.join('\n'),
    );
    assert.equal(lines[1], '11111111 127.0.0.1:50051 1001…');
  });

  it('keeps within the height, summarising the rows that do not fit', () => {
    let many: TableState = new Map();
    for (let n = 1; n <= 9; n += 1) many = applyTableEvent(many, discoveryEvent('worker-added', worker(n)), T0);
    const lines = renderTable(many, { width: 100, height: 8, now: T0, title: 't', notes: ['n'] });
    assert.equal(lines.length, 7);
    assert.equal(lines[0], 't');
    assert.match(lines[1] ?? '', /^UID/);
    assert.equal(lines[4], '… 7 more');
    assert.equal(lines[5], '9 workers · (no tag) 9');
    assert.equal(lines[6], 'n');
  });

  it('an empty table still has its header and count', () => {
    assert.deepEqual(renderTable(new Map(), { width: 80, now: T0 }), [
      'UID ADDRESS PID VERSION TAGS SEEN LAST EVENT EXTRA',
      '0 workers',
    ]);
  });

  it('while loading, the count line says so instead of claiming an empty pool', () => {
    assert.deepEqual(renderTable(new Map(), { width: 80, now: T0, loading: true }), [
      'UID ADDRESS PID VERSION TAGS SEEN LAST EVENT EXTRA',
      'loading workers…',
    ]);
    const one = stateOf([discoveryEvent('worker-added', worker(1)), T0]);
    assert.equal(renderTable(one, { width: 80, now: T0, loading: true }).at(-1), 'loading workers… (1 so far)');
  });

  it('a record cannot drive the terminal', () => {
    const evil = stateOf([
      discoveryEvent('worker-added', worker(1, { version: 'x\u001b[2J', extra: { 'k\r': 'v\u0007' } })),
      T0,
    ]);
    const text = renderTable(evil, { width: 200, now: T0 }).join('\n');
    // eslint-disable-next-line no-control-regex
    assert.doesNotMatch(text, /[\u0000-\u0009\u000b-\u001f\u007f]/);
    assert.match(text, /x\\u001b\[2J/);
  });
});

describe('redrawFrame', () => {
  it('first frame: from the start of the line, clear down, lines with newlines', () => {
    assert.equal(redrawFrame(0, ['a', 'b']), '\r\u001b[Ja\nb\n');
  });

  it('next frames: back up over the previous frame, clear down, write', () => {
    assert.equal(redrawFrame(3, ['x']), '\u001b[3F\u001b[Jx\n');
  });
});

describe('LiveTable', () => {
  it('hides the cursor, redraws over its previous frame, closes with the cursor shown', async () => {
    let written = '';
    const terminal = { columns: 120, rows: 20, write: (text: string) => (written += text) };
    const table = new LiveTable(terminal, { title: 'ns', now: () => T0, refreshMs: 60_000 });
    assert.ok(written.startsWith('\u001b[?25l\r\u001b[Jns\nUID'), JSON.stringify(written));
    table.apply(discoveryEvent('worker-added', worker(1)));
    table.note('hello');
    await new Promise((resolve) => setImmediate(resolve));
    // One redraw for both changes, over the 3-line first frame.
    assert.equal(written.split('\u001b[3F').length, 2, JSON.stringify(written));
    assert.match(
      written,
      /11111111 127\.0\.0\.1:50051 1001 1\.2\.3 +- +0s added 0s ago -\n1 worker · \(no tag\) 1\nhello\n$/,
    );
    assert.equal(table.state.size, 1);
    table.close();
    table.close();
    assert.ok(written.endsWith('\u001b[?25h'));
    assert.equal(written.split('\u001b[?25h').length, 2);
  });
});
