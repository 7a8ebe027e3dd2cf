import { formatDuration } from './formatDuration.js';
import { safeCell } from './safeCell.js';
import { tagCounts } from './tagCounts.js';
import type { RenderTableOptions, TableState } from './types.js';

const HEADERS = ['UID', 'ADDRESS', 'PID', 'VERSION', 'TAGS', 'SEEN', 'LAST EVENT', 'EXTRA'] as const;
/** Columns aligned to the right (numbers). */
const RIGHT = new Set([2, 5]);
/** Widest a column may grow (the last one is only cut by the line width). */
const MAX = [8, 28, 8, 12, 24, 7, 20, Infinity];
const LAST_WORDS = { 'worker-added': 'added', 'worker-updated': 'updated', 'worker-dropped': 'dropped' } as const;

/** A line cut to `width` columns, with `…` when something was cut. */
function cut(line: string, width: number): string {
  if (width <= 0) return '';
  if (line.length <= width) return line;
  return `${line.slice(0, width - 1)}…`;
}

function cell(text: string, width: number, right: boolean): string {
  const fitted = cut(text, width);
  return right ? fitted.padStart(width) : fitted.padEnd(width);
}

/**
 * Renders the live worker table as lines of text (no newlines, no escape
 * codes), every line cut to `width`: an optional title, a header, one row
 * per worker (short uid, address, pid, version, tags, age, last event and
 * how long ago, extra), the worker count with counts by tag (or, while
 * `loading`, `loading workers…`), then the notes. With a `height`, at most `height - 1` lines are returned (the
 * cursor needs the last row) and the rows that do not fit are summarised
 * as `… N more`. Text from worker records is made safe with
 * {@link safeCell}. Pure.
 *
 * @example
 * renderTable(state, { width: 100, now: Date.now(), title: 'namespace pool' });
 * // ['namespace pool',
 * //  'UID      ADDRESS          PID VERSION TAGS   SEEN LAST EVENT  EXTRA',
 * //  '6f1d2b1c 127.0.0.1:50051 4242 0.13.1  cpu,gpu  12s added 12s  zone=eu-1',
 * //  '1 worker · cpu 1 · gpu 1']
 *
 * @param state The live workers.
 * @param options Width, height, time, title and notes.
 * @returns The lines of one frame.
 */
export function renderTable(state: TableState, options: RenderTableOptions): string[] {
  const { width, height, now, title, notes = [], loading = false } = options;
  const rows = [...state.values()].map(({ worker, addedAt, lastType, lastAt }) => [
    worker.uid.slice(0, 8),
    safeCell(worker.address),
    String(worker.pid),
    safeCell(worker.version),
    worker.tags.length === 0 ? '-' : worker.tags.map(safeCell).join(','),
    formatDuration(now - addedAt),
    `${LAST_WORDS[lastType]} ${formatDuration(now - lastAt)} ago`,
    Object.entries(worker.extra)
      .map(([key, value]) => `${safeCell(key)}=${safeCell(value)}`)
      .join(',') || '-',
  ]);
  const widths = HEADERS.map((header, column) =>
    Math.min(MAX[column] ?? Infinity, Math.max(header.length, ...rows.map((row) => (row[column] ?? '').length))),
  );
  const line = (cells: readonly string[]): string =>
    cut(
      cells
        .map((text, column) =>
          column === cells.length - 1
            ? cut(text, MAX[column] ?? Infinity)
            : cell(text, widths[column] ?? 0, RIGHT.has(column)),
        )
        .join(' ')
        .trimEnd(),
      width,
    );

  const counts = tagCounts(state)
    .map(([tag, count]) => `${tag === '' ? '(no tag)' : safeCell(tag)} ${count}`)
    .join(' · ');
  const summary = loading
    ? `loading workers…${state.size === 0 ? '' : ` (${state.size} so far)`}`
    : `${state.size} worker${state.size === 1 ? '' : 's'}${counts === '' ? '' : ` · ${counts}`}`;

  const before = title === undefined ? [] : [cut(safeCell(title), width)];
  const after = [cut(summary, width), ...notes.map((note) => cut(safeCell(note), width))];
  let body = rows.map(line);
  if (height !== undefined) {
    const room = Math.max(0, height - 1 - before.length - 1 - after.length);
    if (body.length > room) {
      const shown = Math.max(0, room - 1);
      body = [...body.slice(0, shown), cut(`… ${rows.length - shown} more`, width)];
    }
  }
  const lines = [...before, line([...HEADERS]), ...body, ...after];
  return height === undefined ? lines : lines.slice(0, Math.max(0, height - 1));
}
