// Which C library the flock addon's loader picks the prebuilt binary for: told by the process's own maps, the
// process report only when they do not tell — and then without its network section (which would look up the
// peer of every open socket synchronously: a process holding an etcd connection froze for the resolver's
// timeouts where no DNS answers).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadFlock } from '../../../src/backends/local/lock/flockAddon.js';
import { libcFlavour } from '../../../src/backends/local/addon/libcFlavour.js';

type Report = typeof process.report & { excludeNetwork?: boolean };

/** Runs `body` with process.report.getReport spied on; returns each call's `excludeNetwork`. */
function spyReports(body: () => void): (boolean | undefined)[] {
  const report = process.report as Report;
  const original = Object.getOwnPropertyDescriptor(report, 'getReport');
  const getReport = report.getReport.bind(report);
  const seen: (boolean | undefined)[] = [];
  report.getReport = (...args: Parameters<typeof getReport>) => {
    seen.push(report.excludeNetwork);
    return getReport(...args);
  };
  try {
    body();
  } finally {
    if (original === undefined) delete (report as { getReport?: unknown }).getReport;
    else Object.defineProperty(report, 'getReport', original);
  }
  return seen;
}

/** What the process report says (the authority the maps stand in for). */
function reported(): 'glibc' | 'musl' {
  const report = process.report as Report;
  report.excludeNetwork = true;
  try {
    const header = (report.getReport() as { header?: { glibcVersionRuntime?: string } }).header;
    return header?.glibcVersionRuntime === undefined ? 'musl' : 'glibc';
  } finally {
    report.excludeNetwork = false;
  }
}

const GLIBC_236 = [
  '55d0c8a00000-55d0c8c00000 r--p 00000000 08:01 1234 /usr/bin/node',
  '7f2a1c000000-7f2a1c028000 r--p 00000000 08:01 5678 /usr/lib/x86_64-linux-gnu/libc.so.6',
  '7f2a1c400000-7f2a1c42a000 r--p 00000000 08:01 91011 /usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2',
].join('\n');
const GLIBC_231 = [
  '55d0c8a00000-55d0c8c00000 r--p 00000000 08:01 1234 /usr/local/bin/node',
  '7f2a1c000000-7f2a1c022000 r--p 00000000 08:01 5678 /lib/x86_64-linux-gnu/libc-2.31.so',
].join('\n');
const MUSL = [
  '55d0c8a00000-55d0c8c00000 r--p 00000000 08:01 1234 /usr/local/bin/node',
  '7f2a1c000000-7f2a1c014000 r--p 00000000 08:01 5678 /lib/ld-musl-x86_64.so.1',
  '7f2a1c400000-7f2a1c500000 r--p 00000000 08:01 91011 /usr/lib/libstdc++.so.6.0.32',
].join('\n');

describe('libcFlavour', () => {
  it("tells this process's C library from its maps, as the process report does, without asking for a report", () => {
    const expected = reported();
    let answer: string | undefined;
    const seen = spyReports(() => (answer = libcFlavour()));
    assert.equal(answer, expected);
    assert.deepEqual(seen, [], 'no report');
  });

  it("reads glibc's libc.so.6 (and libc-2.x.so before glibc 2.34) and musl's loader", () => {
    const seen = spyReports(() => {
      assert.equal(
        libcFlavour(() => GLIBC_236),
        'glibc',
      );
      assert.equal(
        libcFlavour(() => GLIBC_231),
        'glibc',
      );
      assert.equal(
        libcFlavour(() => MUSL),
        'musl',
      );
    });
    assert.deepEqual(seen, [], 'no report');
  });

  it('asks the process report, without its network section, only when the maps do not tell; restores the setting', () => {
    const expected = reported();
    const answers: string[] = [];
    const seen = spyReports(() => {
      answers.push(
        libcFlavour(() => {
          throw Object.assign(new Error('no /proc'), { code: 'ENOENT' });
        }),
      );
      answers.push(libcFlavour(() => '55d0c8a00000-55d0c8c00000 r--p 00000000 08:01 1234 /usr/bin/node'));
    });
    assert.deepEqual(answers, [expected, expected]);
    assert.deepEqual(seen, [true, true], 'one report each, without the network section');
    assert.equal((process.report as Report).excludeNetwork, false, 'the setting is restored');
  });

  it('the first lock of a process loads the addon without a process report', () => {
    const seen = spyReports(() => loadFlock());
    assert.deepEqual(seen, []);
  });
});
