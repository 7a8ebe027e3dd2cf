import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import {
  machineInfo,
  NOTES_MARKER,
  renderLatencyChart,
  renderReportMarkdown,
  writeReport,
  type BenchReport,
} from '../../bench/report.js';

const machine = {
  cpu: 'Test CPU | 3 GHz',
  cores: 4,
  memoryGiB: 16,
  node: 'v20.0.0',
  os: 'linux 6.1 x64',
  date: '2026-01-02T03:04:05Z',
};
const report: BenchReport = {
  machine,
  tables: [
    {
      suite: 'core',
      title: 'codec',
      rows: [
        { name: 'encodeWorker', value: 2021.4, unit: 'ns/op' },
        { name: 'size', value: 13.25, unit: 'bytes' },
      ],
    },
  ],
  latency: [
    { workers: 1000, p50_us: 800, p99_us: 4000 },
    { workers: 100, p50_us: 700, p99_us: 3000 },
  ],
  failed: [{ suite: 'lan', reason: 'needs root\nstack' }],
  command: 'npm run bench -- --report',
};

describe('bench report', () => {
  it('renders the local rows against their floors: figure, floor, ratio, target and whether it is met (or for comparison)', () => {
    const spread = (min: number, median: number, max: number) => ({ min, median, max });
    const md = renderReportMarkdown({
      ...report,
      floors: [
        {
          row: 'add → event p50, 1,000 workers',
          unit: 'µs',
          value: spread(180, 190, 260),
          floor: spread(120, 130, 140),
          floorName: 'lone-add floor',
          ratio: spread(1.4, 1.46, 1.9),
          target: 1.5,
        },
        {
          row: 'subscriber CPU per event',
          unit: 'µs',
          value: spread(80, 85, 90),
          floor: spread(40, 42, 45),
          floorName: 'the bare subscriber',
          ratio: spread(1.9, 2.02, 2.1),
          target: 1.5,
        },
        {
          row: 'live memory',
          unit: 'MB',
          value: spread(8.1, 8.2, 8.2),
          floor: spread(7.6, 7.6, 7.6),
          floorName: 'the peer',
          ratio: spread(1.07, 1.08, 1.08),
        },
      ],
    });
    assert.match(md, /^## Local backend against its floors$/m);
    assert.match(
      md,
      /^\| add → event p50, 1,000 workers \| 190 \(180–260\) µs \| lone-add floor: 130 \(120–140\) µs \| 1\.46× \(1\.40×–1\.90×\) \| ≤ 1\.5× \| yes \|$/m,
    );
    assert.match(md, /^\| subscriber CPU per event \| .* \| 2\.02× \(1\.90×–2\.10×\) \| ≤ 1\.5× \| no \|$/m);
    assert.match(
      md,
      /^\| live memory \| .* \| 1\.08× \(1\.07×–1\.08×\) \| — \| for comparison \|$/m,
      'a row without a target',
    );
    assert.doesNotMatch(renderReportMarkdown(report), /against its floors/, 'no such section without floors');
  });

  it('describes this machine', () => {
    const info = machineInfo(new Date('2026-01-02T03:04:05.678Z'));
    assert.equal(info.date, '2026-01-02T03:04:05Z');
    assert.ok(info.cores > 0);
    assert.ok(info.memoryGiB > 0);
    assert.equal(info.node, process.version);
  });

  it('renders the machine, every table, the sweep and the failed suites as Markdown', () => {
    const md = renderReportMarkdown(report);
    assert.match(md, /^# Benchmarks$/m);
    assert.match(md, /\| CPU \| Test CPU \\\| 3 GHz \|/);
    assert.match(md, /\| cores \| 4 \|/);
    assert.match(md, /\| memory \| 16 GiB \|/);
    assert.match(md, /\| Node\.js \| v20\.0\.0 \|/);
    assert.match(md, /\| date \(UTC\) \| 2026-01-02T03:04:05Z \|/);
    assert.match(md, /## core: codec/);
    const again = renderReportMarkdown({
      ...report,
      tables: [{ suite: 'local', title: 'local: add → event', rows: [] }],
    });
    assert.match(again, /^## local: add → event$/m);
    assert.match(md, /\| encodeWorker \| 2,021 \| ns\/op \|/);
    assert.match(md, /\| size \| 13\.3 \| bytes \|/);
    assert.match(md, /!\[[^\]]*\]\(images\/local-latency\.svg\)/);
    assert.match(md, /\| 1,000 \| 800 \| 4,000 \|/);
    assert.match(md, /- \*\*lan\*\*: needs root$/m);
  });

  it('leaves the latency section out without a sweep', () => {
    const md = renderReportMarkdown({ ...report, latency: [], failed: [] });
    assert.doesNotMatch(md, /local-latency/);
    assert.doesNotMatch(md, /failed/);
  });

  it('charts p50 and p99 against workers, in order of workers', () => {
    const svg = renderLatencyChart(report.latency, machine);
    assert.match(svg, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    const lines = [...svg.matchAll(/<polyline points="([^"]+)"/g)].map((m) => m[1] ?? '');
    assert.equal(lines.length, 2);
    for (const points of lines) {
      const xs = points.split(' ').map((p) => Number(p.split(',')[0]));
      assert.equal(xs.length, 2);
      assert.ok((xs[0] ?? 0) < (xs[1] ?? 0), 'x grows with workers');
    }
    // p99 (higher latency) is drawn above p50: a smaller y.
    const ys = lines.map((points) => Number(points.split(' ')[0]?.split(',')[1]));
    assert.ok((ys[1] ?? 0) < (ys[0] ?? 0));
    assert.match(svg, /Test CPU \| 3 GHz/);
  });

  it('writes docs/benchmarks.md and the chart under the root', async () => {
    const root = await mkdtemp(join(tmpdir(), 'woolrx-report-'));
    try {
      const written = await writeReport(root, report);
      assert.deepEqual(written, [
        join(root, 'docs', 'images', 'local-latency.svg'),
        join(root, 'docs', 'benchmarks.md'),
      ]);
      assert.equal(await readFile(join(root, 'docs', 'benchmarks.md'), 'utf8'), renderReportMarkdown(report));
      assert.equal(
        await readFile(join(root, 'docs', 'images', 'local-latency.svg'), 'utf8'),
        renderLatencyChart(report.latency, machine),
      );
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });

  it('keeps the hand-written notes at the end of docs/benchmarks.md when it writes the figures again', async () => {
    const root = await mkdtemp(join(tmpdir(), 'woolrx-report-'));
    try {
      const notes = `${NOTES_MARKER}\n\n## Notes\n\nHow the etcd sync was measured.\n`;
      await writeReport(root, report);
      const path = join(root, 'docs', 'benchmarks.md');
      await writeFile(path, `${await readFile(path, 'utf8')}\n${notes}`);
      await writeReport(root, { ...report, tables: [] });
      assert.equal(await readFile(path, 'utf8'), `${renderReportMarkdown({ ...report, tables: [] })}\n${notes}`);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
