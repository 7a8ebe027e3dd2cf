// A failing test leaves nothing behind either: the suites that drive the real
// wool (test/interop, and the local backend's and reliability's wool tests)
// are run with the wool peer missing — WOOL_PEER an empty folder, so they
// fail part-way, after woolrx made segments, blocks, lock folders and
// notification folders — and their cleanup (after hooks, finally blocks,
// the helpers' sweep at exit) must still remove everything. They run in a
// mount namespace of their own (a private tmpfs on /dev/shm, a private temp
// directory), so that what is left is theirs alone, and can be listed.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, it } from 'node:test';
import { fileURLToPath } from 'node:url';
// @ts-expect-error -- a plain .mjs script without type declarations
import { isWoolrxShm, isWoolrxTmp } from '../../scripts/leakCheck.mjs';

const repo = fileURLToPath(new URL('../..', import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'woolrx-failedcleanup-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

const FILES = [
  'test/interop/realWoolLocal.test.ts',
  'test/backends/local/interop.test.ts',
  'test/backends/local/woolLock.test.ts',
  'test/reliability/shmLeaks.test.ts',
];
const MARK = '== left in /dev/shm and the temp directory';

it(
  'suites that fail part-way (the wool peer missing) still remove every segment, block, lock and folder they made',
  { timeout: 120_000 },
  () => {
    const tmp = mkdtempSync(join(scratch, 'tmp-'));
    const peer = join(scratch, 'no-wool-peer');
    mkdirSync(peer);
    const { NODE_TEST_CONTEXT: _context, ...env } = process.env;
    const script = `mount -t tmpfs -o size=64m,mode=1777 tmpfs /dev/shm || exit 99
"$@" >/dev/null 2>&1
status=$?
echo "${MARK}"
ls -A /dev/shm
echo "=="
ls -A "$TMPDIR"
exit $status`;
    const run = spawnSync(
      'unshare',
      [
        '-m',
        '--propagation',
        'private',
        'sh',
        '-c',
        script,
        'sh',
        process.execPath,
        '--import',
        'tsx',
        '--test',
        '--test-reporter=dot',
        ...FILES,
      ],
      {
        cwd: repo,
        encoding: 'utf8',
        env: { ...env, TMPDIR: tmp, WOOL_PEER: peer, WOOLRX_TEST: '1' },
        timeout: 110_000,
      },
    );
    const out = run.stdout;
    assert.ok(
      out.includes(MARK),
      `the run did not finish: status ${run.status}, ${run.stderr}${run.error?.message ?? ''}`,
    );
    assert.notEqual(run.status, 0, 'the suites fail without the wool peer');
    const [shmPart = '', tmpPart = ''] = out.slice(out.indexOf(MARK) + MARK.length).split('\n==\n');
    const names = (text: string): string[] =>
      text
        .split('\n')
        .map((line) => line.trim())
        .filter((line) => line !== '');
    assert.deepEqual(names(shmPart).filter(isWoolrxShm as (name: string) => boolean), [], 'left in /dev/shm');
    assert.deepEqual(names(tmpPart).filter(isWoolrxTmp as (name: string) => boolean), [], 'left in the temp directory');
  },
);
