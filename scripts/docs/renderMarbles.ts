/**
 * Renders the operator marble diagrams (marbles/diagrams.ts) as SVG pictures,
 * plain SVG text with no dependencies: timelines with arrows, values as
 * labelled circles, completion bars, error crosses, subscription markers.
 *
 * `tsx scripts/docs/renderMarbles.ts` writes docs/images/marbles/<name>.svg;
 * test/docs/marbles.test.ts fails when a committed picture differs from what
 * this renders now.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { diagrams, type MarbleDiagram, type MarbleLine, type Tone } from '../../marbles/diagrams.js';

/** Where the pictures go, relative to the repository root. */
export const MARBLE_IMAGE_DIR = join('docs', 'images', 'marbles');

const FRAME = 34; // px per frame
const LABEL_WIDTH = 150;
const MARGIN = 20;
const ROW = 56;
const RADIUS = 13;
const GROUP_STEP = 26; // px between the values of one frame's group
const OPERATOR_HEIGHT = 44;
const LEGEND_ROW = 22;
const TITLE_HEIGHT = 34;

const TONES: Record<Tone, { fill: string; stroke: string }> = {
  added: { fill: '#c8ecd3', stroke: '#2e8b57' },
  updated: { fill: '#fde6b0', stroke: '#c8890b' },
  dropped: { fill: '#f7cdcd', stroke: '#c0392b' },
  snapshot: { fill: '#cfe0fa', stroke: '#3a6fc4' },
  item: { fill: '#e3dcf7', stroke: '#6a55c2' },
};
const INK = '#1f2933';
const KEY = '▲ subscribe · ⁄ unsubscribe · | complete · ✕ error · dashed pill: one frame, in order · bold: subscribed';
const MUTED = '#9aa5b1';
const FONT = 'font-family="ui-monospace, SFMono-Regular, Menlo, Consolas, \'DejaVu Sans Mono\', monospace"';

/** A notification parsed from a marble string, at its frame. */
type Mark =
  | { kind: 'next'; frame: number; key: string; index: number; groupSize: number }
  | { kind: 'complete' | 'error' | 'subscribe' | 'unsubscribe'; frame: number; index: number; groupSize: number };

/**
 * Parses marbles the way TestScheduler's run mode does: spaces are ignored,
 * every other character is one frame, a group `(…)` puts all its members at
 * the frame of its `(`. Time progression (`10ms`) is not supported.
 */
export function parseMarbles(marbles: string): { marks: Mark[]; frames: number } {
  const marks: Mark[] = [];
  let frame = 0;
  let group: Mark[] | undefined;
  let groupFrame = 0;
  for (const c of marbles) {
    if (c === ' ') continue;
    const at = group === undefined ? frame : groupFrame;
    let mark: Mark | undefined;
    if (c === '(') {
      if (group !== undefined) throw new TypeError(`renderMarbles: nested group in ${JSON.stringify(marbles)}`);
      group = [];
      groupFrame = frame;
    } else if (c === ')') {
      if (group === undefined) throw new TypeError(`renderMarbles: unopened group in ${JSON.stringify(marbles)}`);
      for (const member of group) member.groupSize = group.length;
      group = undefined;
    } else if (c === '|') {
      mark = { kind: 'complete', frame: at, index: 0, groupSize: 1 };
    } else if (c === '#') {
      mark = { kind: 'error', frame: at, index: 0, groupSize: 1 };
    } else if (c === '^') {
      mark = { kind: 'subscribe', frame: at, index: 0, groupSize: 1 };
    } else if (c === '!') {
      mark = { kind: 'unsubscribe', frame: at, index: 0, groupSize: 1 };
    } else if (c !== '-') {
      mark = { kind: 'next', frame: at, key: c, index: 0, groupSize: 1 };
    }
    if (mark !== undefined) {
      if (group !== undefined) {
        mark.index = group.length;
        group.push(mark);
      }
      marks.push(mark);
    }
    frame += 1;
  }
  if (group !== undefined) throw new TypeError(`renderMarbles: unclosed group in ${JSON.stringify(marbles)}`);
  return { marks, frames: frame };
}

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

const fmt = (n: number): string => String(Math.round(n * 10) / 10);

/** The x of a mark: its frame, shifted right within a group so the members do not overlap. */
function xOf(mark: Mark): number {
  return LABEL_WIDTH + MARGIN + FRAME / 2 + mark.frame * FRAME + mark.index * GROUP_STEP;
}

function renderLine(line: MarbleLine, y: number, width: number, toneOf: (key: string) => Tone): string[] {
  const out: string[] = [];
  const x0 = LABEL_WIDTH + MARGIN;
  const x1 = width - MARGIN;
  out.push(
    `<text x="${fmt(LABEL_WIDTH)}" y="${fmt(y + 4)}" text-anchor="end" font-size="13" fill="${INK}" ${FONT}>${escapeXml(line.label)}</text>`,
  );
  // The timeline: thin and muted outside the subscription, bold inside it.
  const subs = line.subscription === undefined ? [] : parseMarbles(line.subscription).marks;
  const start = subs.find((m) => m.kind === 'subscribe');
  const end = subs.find((m) => m.kind === 'unsubscribe');
  const { marks } = parseMarbles(line.marbles);
  const terminal = marks.find((m) => m.kind === 'complete' || m.kind === 'error');
  const spanFrom = start === undefined ? x0 : xOf(start);
  const spanTo = end !== undefined ? xOf(end) : terminal !== undefined ? xOf(terminal) : x1 - 10;
  out.push(
    `<line x1="${fmt(x0)}" y1="${fmt(y)}" x2="${fmt(x1 - 10)}" y2="${fmt(y)}" stroke="${MUTED}" stroke-width="1.5"/>`,
  );
  out.push(
    `<polygon points="${fmt(x1)},${fmt(y)} ${fmt(x1 - 11)},${fmt(y - 5)} ${fmt(x1 - 11)},${fmt(y + 5)}" fill="${MUTED}"/>`,
  );
  out.push(
    `<line x1="${fmt(spanFrom)}" y1="${fmt(y)}" x2="${fmt(spanTo)}" y2="${fmt(y)}" stroke="${INK}" stroke-width="2.5"/>`,
  );
  if (start !== undefined) {
    const x = xOf(start);
    out.push(
      `<polygon points="${fmt(x)},${fmt(y + 15)} ${fmt(x - 6)},${fmt(y + 24)} ${fmt(x + 6)},${fmt(y + 24)}" fill="${INK}"><title>subscribe</title></polygon>`,
    );
  }
  if (end !== undefined) {
    const x = xOf(end);
    out.push(
      `<g stroke="${INK}" stroke-width="2"><title>unsubscribe</title><line x1="${fmt(x)}" y1="${fmt(y - 9)}" x2="${fmt(x)}" y2="${fmt(y + 9)}" stroke-dasharray="3 2"/><line x1="${fmt(x - 5)}" y1="${fmt(y + 24)}" x2="${fmt(x + 5)}" y2="${fmt(y + 15)}"/></g>`,
    );
  }
  // Groups: a pill behind the members of one frame.
  for (const mark of marks) {
    if (mark.index === 0 && mark.groupSize > 1) {
      const left = xOf(mark) - RADIUS - 4;
      const right = xOf(mark) + (mark.groupSize - 1) * GROUP_STEP + RADIUS + 4;
      out.push(
        `<rect x="${fmt(left)}" y="${fmt(y - RADIUS - 4)}" width="${fmt(right - left)}" height="${fmt(2 * RADIUS + 8)}" rx="${fmt(RADIUS + 4)}" fill="#f3f5f7" stroke="${MUTED}" stroke-dasharray="3 2"/>`,
      );
    }
  }
  for (const mark of marks) {
    const x = xOf(mark);
    if (mark.kind === 'next') {
      const tone = TONES[toneOf(mark.key)];
      out.push(
        `<circle cx="${fmt(x)}" cy="${fmt(y)}" r="${RADIUS}" fill="${tone.fill}" stroke="${tone.stroke}" stroke-width="2"/>`,
      );
      out.push(
        `<text x="${fmt(x)}" y="${fmt(y + 4.5)}" text-anchor="middle" font-size="13" font-weight="bold" fill="${INK}" ${FONT}>${escapeXml(mark.key)}</text>`,
      );
    } else if (mark.kind === 'complete') {
      out.push(
        `<line x1="${fmt(x)}" y1="${fmt(y - 14)}" x2="${fmt(x)}" y2="${fmt(y + 14)}" stroke="${INK}" stroke-width="3"><title>complete</title></line>`,
      );
    } else if (mark.kind === 'error') {
      out.push(
        `<g stroke="#c0392b" stroke-width="3" stroke-linecap="round"><title>error</title><line x1="${fmt(x - 9)}" y1="${fmt(y - 9)}" x2="${fmt(x + 9)}" y2="${fmt(y + 9)}"/><line x1="${fmt(x - 9)}" y1="${fmt(y + 9)}" x2="${fmt(x + 9)}" y2="${fmt(y - 9)}"/></g>`,
      );
    }
  }
  return out;
}

/** Renders one diagram as a standalone SVG document (deterministic: same diagram, same text). */
export function renderDiagram(diagram: MarbleDiagram): string {
  const frames = Math.max(
    ...diagram.lines.flatMap((line) => {
      const notes = parseMarbles(line.marbles);
      const extra = Math.max(0, ...notes.marks.map((m) => (m.groupSize - 1) * (GROUP_STEP / FRAME)));
      return [notes.frames + extra, line.subscription === undefined ? 0 : parseMarbles(line.subscription).frames];
    }),
  );
  // Wide enough for the timelines and for the title (bold 14px: about 8.2px a character).
  const width = Math.ceil(
    Math.max(LABEL_WIDTH + 2 * MARGIN + (frames + 1.5) * FRAME, 2 * MARGIN + diagram.title.length * 8.2),
  );
  const tones = new Map(diagram.legend.map((entry) => [entry.key, entry.tone]));
  const toneOf = (key: string): Tone => tones.get(key) ?? 'item';
  const inputs = diagram.lines.filter((l) => l.role === 'input');
  const outputs = diagram.lines.filter((l) => l.role === 'output');
  // Two legend columns when the longest entry fits in half the width (12px text: about 6.6px a character).
  const longest = Math.max(...diagram.legend.map((entry) => entry.text.length));
  const legendColumns = 2 * (30 + longest * 6.6) <= width - 2 * MARGIN ? 2 : 1;
  const legendRows = Math.ceil(diagram.legend.length / legendColumns);
  const height =
    TITLE_HEIGHT +
    inputs.length * ROW +
    OPERATOR_HEIGHT +
    12 +
    outputs.length * ROW +
    10 +
    (legendRows + 1) * LEGEND_ROW +
    MARGIN;

  const body: string[] = [];
  body.push(`<rect width="${width}" height="${height}" fill="#ffffff"/>`);
  body.push(
    `<text x="${MARGIN}" y="22" font-size="14" font-weight="bold" fill="${INK}" font-family="system-ui, -apple-system, 'Segoe UI', Helvetica, Arial, sans-serif">${escapeXml(diagram.title)}</text>`,
  );
  let y = TITLE_HEIGHT + ROW / 2;
  for (const line of inputs) {
    body.push(...renderLine(line, y, width, toneOf));
    y += ROW;
  }
  const boxTop = y - ROW / 2 + 6;
  body.push(
    `<rect x="${MARGIN}" y="${fmt(boxTop)}" width="${width - 2 * MARGIN}" height="${OPERATOR_HEIGHT}" rx="6" fill="#f3f5f7" stroke="${INK}" stroke-width="1.5"/>`,
  );
  body.push(
    `<text x="${fmt(width / 2)}" y="${fmt(boxTop + OPERATOR_HEIGHT / 2 + 5)}" text-anchor="middle" font-size="15" fill="${INK}" ${FONT}>${escapeXml(diagram.operator)}</text>`,
  );
  y = boxTop + OPERATOR_HEIGHT + 12 + ROW / 2;
  for (const line of outputs) {
    body.push(...renderLine(line, y, width, toneOf));
    y += ROW;
  }
  const legendTop = y - ROW / 2 + 10;
  const columnWidth = (width - 2 * MARGIN) / legendColumns;
  diagram.legend.forEach((entry, i) => {
    const column = Math.floor(i / legendRows);
    const row = i % legendRows;
    const x = MARGIN + column * columnWidth + 9;
    const cy = legendTop + row * LEGEND_ROW + LEGEND_ROW / 2;
    const tone = TONES[entry.tone];
    body.push(
      `<circle cx="${fmt(x)}" cy="${fmt(cy)}" r="8" fill="${tone.fill}" stroke="${tone.stroke}" stroke-width="1.5"/>`,
    );
    body.push(
      `<text x="${fmt(x)}" y="${fmt(cy + 3.5)}" text-anchor="middle" font-size="10" font-weight="bold" fill="${INK}" ${FONT}>${escapeXml(entry.key)}</text>`,
    );
    body.push(
      `<text x="${fmt(x + 15)}" y="${fmt(cy + 4)}" font-size="12" fill="${INK}" font-family="system-ui, -apple-system, 'Segoe UI', Helvetica, Arial, sans-serif">${escapeXml(entry.text)}</text>`,
    );
  });

  body.push(
    `<text x="${MARGIN}" y="${fmt(legendTop + legendRows * LEGEND_ROW + LEGEND_ROW / 2 + 4)}" font-size="11" fill="#616e7c" font-family="system-ui, -apple-system, 'Segoe UI', Helvetica, Arial, sans-serif">${escapeXml(KEY)}</text>`,
  );

  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${fmt(height)}" viewBox="0 0 ${width} ${fmt(height)}" role="img" aria-label="${escapeXml(diagram.title)}">`,
    `<title>${escapeXml(diagram.title)}</title>`,
    ...body.map((line) => `  ${line}`),
    '</svg>',
    '',
  ].join('\n');
}

/** Every diagram's file name (under {@link MARBLE_IMAGE_DIR}) and SVG text. */
export function renderAll(): Array<{ file: string; svg: string }> {
  return diagrams.map((diagram) => ({ file: `${diagram.name}.svg`, svg: renderDiagram(diagram) }));
}

function main(): void {
  const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
  const dir = join(root, MARBLE_IMAGE_DIR);
  mkdirSync(dir, { recursive: true });
  for (const { file, svg } of renderAll()) {
    writeFileSync(join(dir, file), svg);
    process.stdout.write(`wrote ${join(MARBLE_IMAGE_DIR, file)}\n`);
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) main();
