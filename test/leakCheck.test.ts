// `npm test` checks the whole run (scripts/test.mjs, scripts/leakCheck.mjs):
// woolrx-shaped entries new in /dev/shm or the temp directory after the run
// fail it, each named, and the runner's closing summary stays last. The end
// to end runs happen in a mount namespace of their own with a private tmpfs
// on /dev/shm and a private temp directory, so that the other test files
// running meanwhile cannot show up in (or hide from) the check.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
// @ts-expect-error -- a plain .mjs script without type declarations
import { isWoolrxShm, isWoolrxTmp, leakReport, newEntries, woolrxEntries } from '../scripts/leakCheck.mjs';

const repo = fileURLToPath(new URL('..', import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'woolrx-leakcheck-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

type Entries = (dirs: { shmDir: string; tmpDir: string }) => Set<string>;

describe('the leak check of npm test', () => {
  it("knows what is woolrx-shaped: lock folders, segments and blocks (30-character short hashes), wool-*/woolrx-* in the temp directory; not other programs' objects", () => {
    const shm = join(scratch, 'shm');
    const tmp = join(scratch, 'tmp');
    mkdirSync(shm);
    mkdirSync(tmp);
    const ours = [
      'woolrx-lock-5erq9IQVk52-pI_x3nye8iM07faS2e',
      '5erq9IQVk52-pI_x3nye8iM07faS2e',
      'fX2taOjhEws3Xt_BVzfnipvB5cO1aB',
    ];
    const theirs = [
      'pulse-shm-1234',
      'psm_0a1b2c3d',
      '.org.chromium.Chromium.aB3dEf',
      'sem.lock',
      '5erq9IQVk52-pI_x3nye8iM07faS2eX',
      'short_hash_29_chars_aaaaaaaaa',
    ];
    for (const name of [...ours, ...theirs]) writeFileSync(join(shm, name), '');
    const oursTmp = ['wool-lock-5erq9IQVk52-pI_x3nye8iM07faS2e', 'wool-my-pool', 'woolrx-etcd-cDUCMx'];
    const theirsTmp = ['tsx-0', 'systemd-private-abc', 'npm-1234', 'v8-compile-cache-0', 'woo'];
    for (const name of [...oursTmp, ...theirsTmp]) mkdirSync(join(tmp, name));
    for (const name of ours) assert.equal((isWoolrxShm as (name: string) => boolean)(name), true, name);
    for (const name of theirs) assert.equal((isWoolrxShm as (name: string) => boolean)(name), false, name);
    for (const name of oursTmp) assert.equal((isWoolrxTmp as (name: string) => boolean)(name), true, name);
    for (const name of theirsTmp) assert.equal((isWoolrxTmp as (name: string) => boolean)(name), false, name);

    const before = (woolrxEntries as Entries)({ shmDir: shm, tmpDir: tmp });
    assert.deepEqual(
      [...before].sort(),
      [...ours.map((name) => join(shm, name)), ...oursTmp.map((name) => join(tmp, name))].sort(),
    );
    writeFileSync(join(shm, 'woolrx-lock-new'), '');
    writeFileSync(join(shm, 'pulse-shm-5678'), '');
    mkdirSync(join(tmp, 'wool-new-pool'));
    rmSync(join(shm, ours[1] ?? ''));
    const left = (newEntries as (a: Set<string>, b: Set<string>) => string[])(
      before,
      (woolrxEntries as Entries)({ shmDir: shm, tmpDir: tmp }),
    );
    assert.deepEqual(left, [join(shm, 'woolrx-lock-new'), join(tmp, 'wool-new-pool')]);
    assert.equal(
      (leakReport as (left: string[]) => string)(left),
      `leak check: the run left 2 new woolrx-shaped entries in /dev/shm or the temp directory (a test did not clean up, or the code under test leaked):\n  ${left[0]}\n  ${left[1]}\n`,
    );
  });

  /** `node scripts/test.mjs file` in a mount namespace of its own: a private /dev/shm, TMPDIR a private folder. */
  function runIsolated(file: string, tmp: string): { status: number | null; stdout: string; stderr: string } {
    const { NODE_TEST_CONTEXT: _context, ...env } = process.env;
    const result = spawnSync(
      'unshare',
      [
        '-m',
        '--propagation',
        'private',
        'sh',
        '-c',
        'mount -t tmpfs -o size=16m,mode=1777 tmpfs /dev/shm && exec "$@"',
        'sh',
        process.execPath,
        'scripts/test.mjs',
        file,
      ],
      { cwd: repo, encoding: 'utf8', env: { ...env, TMPDIR: tmp }, timeout: 120_000 },
    );
    return { status: result.status, stdout: result.stdout, stderr: `${result.stderr}${result.error?.message ?? ''}` };
  }

  it('fails a run that leaves an object behind, naming it above the summary, which stays last; passes a clean one', () => {
    const tmp = mkdtempSync(join(scratch, 'run-'));
    const leaky = join(tmp, 'leaky.test.ts');
    writeFileSync(
      leaky,
      `import { writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { it } from 'node:test';
it('passes, and leaves a lock folder and a wool lock file', () => {
  mkdirSync('/dev/shm/woolrx-lock-leakcheckprobe');
  writeFileSync(join(tmpdir(), 'wool-lock-leakcheckprobe'), '');
});
`,
    );
    const clean = join(tmp, 'clean.test.ts');
    writeFileSync(
      clean,
      `import { rmSync, writeFileSync } from 'node:fs';
import { it } from 'node:test';
it('passes, and removes what it made', () => {
  writeFileSync('/dev/shm/woolrx-lock-leakcheckprobe', '');
  rmSync('/dev/shm/woolrx-lock-leakcheckprobe');
});
`,
    );

    const failed = runIsolated(leaky, tmp);
    assert.equal(failed.status, 1, `${failed.stdout}${failed.stderr}`);
    const lines = failed.stdout.trimEnd().split('\n');
    const report = lines.findIndex((line) => line.startsWith('leak check: the run left 2 new woolrx-shaped entries'));
    assert.ok(report >= 0, failed.stdout);
    assert.deepEqual(lines.slice(report + 1, report + 3), [
      '  /dev/shm/woolrx-lock-leakcheckprobe',
      `  ${join(tmp, 'wool-lock-leakcheckprobe')}`,
    ]);
    assert.match(lines[report + 3] ?? '', /ℹ tests 1$/, 'the summary follows the report');
    assert.ok(lines.includes('ℹ pass 1'), 'the test itself passed');
    assert.match(lines.at(-1) ?? '', /^ℹ duration_ms /, 'the summary stays last');

    const passed = runIsolated(clean, tmp);
    assert.equal(passed.status, 0, `${passed.stdout}${passed.stderr}`);
    assert.doesNotMatch(passed.stdout, /leak check/);
    assert.match(passed.stdout.trimEnd().split('\n').at(-1) ?? '', /^ℹ duration_ms /);
  });
});
