// The committed marble pictures must be what the generator renders now, from
// the diagram definitions the marble specs run (marbles/diagrams.ts).
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { diagrams } from '../../marbles/diagrams.js';
import { MARBLE_IMAGE_DIR, parseMarbles, renderAll, renderDiagram } from '../../scripts/docs/renderMarbles.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const dir = join(root, MARBLE_IMAGE_DIR);

describe('docs marble pictures', () => {
  for (const { file, svg } of renderAll()) {
    it(`${file} is up to date (run: npx tsx scripts/docs/renderMarbles.ts)`, () => {
      const committed = readFileSync(join(dir, file), 'utf8');
      assert.equal(committed, svg, `${join(MARBLE_IMAGE_DIR, file)} is out of date`);
    });
  }

  it('holds no picture without a diagram', () => {
    const names = new Set(diagrams.map((d) => `${d.name}.svg`));
    const stale = readdirSync(dir).filter((f) => !names.has(f));
    assert.deepEqual(stale, []);
  });

  it('covers every operator of the docs', () => {
    assert.deepEqual(diagrams.map((d) => d.name).sort(), [
      'PredicatedQueue',
      'diffSnapshots',
      'expireWorkers',
      'filterWorkers',
      'leaseWorkers',
      'shareWorkers',
      'toSnapshots',
    ]);
  });

  it('parses marbles the way TestScheduler run mode times them', () => {
    const { marks, frames } = parseMarbles(' -a-(bc)-|');
    assert.equal(frames, 9);
    assert.deepEqual(
      marks.map((m) => [m.kind, m.frame, m.index, m.groupSize]),
      [
        ['next', 1, 0, 1],
        ['next', 3, 0, 2],
        ['next', 3, 1, 2],
        ['complete', 8, 0, 1],
      ],
    );
    assert.throws(() => parseMarbles('-(a'), /unclosed group/);
  });

  it('draws values, groups, completion, errors and subscription markers', () => {
    const svg = renderDiagram({
      name: 'sample',
      title: 'a <sample> & more',
      operator: 'op()',
      lines: [
        { label: 'in', marbles: '-a-(bc)-#', subscription: '^-------!', role: 'input' },
        { label: 'out', marbles: '-a---|', role: 'output' },
      ],
      legend: [
        { key: 'a', text: 'first', tone: 'added' },
        { key: 'b', text: 'second', tone: 'dropped' },
      ],
      verify: () => undefined,
    });
    assert.match(svg, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    assert.match(svg, /<title>a &lt;sample&gt; &amp; more<\/title>/);
    assert.equal(svg.match(/<circle /g)?.length, 4 + 2, 'four values and two legend marks');
    assert.equal(svg.match(/<title>error<\/title>/g)?.length, 1);
    assert.equal(svg.match(/<title>complete<\/title>/g)?.length, 1);
    assert.equal(svg.match(/<title>subscribe<\/title>/g)?.length, 1);
    assert.equal(svg.match(/<title>unsubscribe<\/title>/g)?.length, 1);
    assert.equal(svg.match(/stroke-dasharray="3 2"\/>/g)?.length, 2, 'one group pill, one unsubscribe line');
    assert.equal(
      renderDiagram({ name: 'x', title: 't', operator: 'o', lines: [], legend: [], verify: () => undefined }).includes(
        'NaN',
      ),
      false,
    );
  });
});
