// A newcomer's mistakes on the command line: each is one line on
// stderr that names the fix, then one line pointing at --help, status 2 —
// not the usage of every backend, not node:util's or a factory's internals.
// And SIGHUP (the terminal or tmux pane closed) stops `publish` as SIGTERM
// does: the worker is withdrawn and nothing is left in /dev/shm or /tmp.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { residue, sweep, uniqueNamespace, woolrx } from './children.js';

const HELP = /^Run 'woolrx( \w+)? --help' for the options\.$/;

describe('woolrx: the mistakes a newcomer makes', { timeout: 60_000 }, () => {
  const ns = uniqueNamespace('mistakes');
  const cases: [string[], RegExp][] = [
    [[], /^woolrx: missing command$/],
    [['dashboard'], /^woolrx dashboard: missing --namespace$/],
    [['watch', '-n'], /^woolrx watch: --namespace needs a value \(--namespace NS\)$/],
    [
      ['watch', '-n', '-x'],
      /^woolrx watch: --namespace needs a value \(one that starts with "-" is written --namespace=NS\)$/,
    ],
    [
      ['publish', '-n', ns, '-a', 'h:1', '--pid', '-5'],
      /^woolrx publish: --pid needs a value \(one that starts with "-" is written --pid=N\)$/,
    ],
    [['watch', '-n', ns, '--json=yes'], /^woolrx watch: --json takes no value$/],
    [
      ['watch', '-b', 'etcd', '-n', ns, '--endpoints', 'http://[::1'],
      /^woolrx watch: --endpoints must be URLs like http:\/\/127\.0\.0\.1:2379 .*, got "http:\/\/\[::1"$/,
    ],
    [['watch', '-b', 'etcd', '-n', ns, '--endpoints', 'ftp://x'], /^woolrx watch: --endpoints must be URLs like /],
    [
      ['watch', '-b', 'etcd', '-n', ns, '--ca', '/nonexistent'],
      /^woolrx watch: --ca \/nonexistent: no such file \(give the path of a PEM file\)$/,
    ],
    [
      ['publish', '-b', 'lan', '-n', ns, '-a', '10.0.0.5:7000', '--advertise-host', '0.0.0.0'],
      /^woolrx publish: --advertise-host must be the address peers should connect to/,
    ],
  ];
  for (const [args, reason] of cases) {
    it(`woolrx ${args.join(' ').replaceAll(ns, 'NS')}`, async () => {
      const child = woolrx(args);
      assert.deepEqual(await child.exited, { code: 2, signal: null }, child.stderr);
      const lines = child.stderr.split('\n');
      assert.equal(lines.length, 3, `two lines on stderr, got:\n${child.stderr}`);
      assert.match(lines[0] ?? '', reason);
      assert.doesNotMatch(lines[0] ?? '', /Discovery: option|argument missing|ambiguous|ENOENT/);
      assert.match(lines[1] ?? '', HELP);
      assert.deepEqual(child.pending(), [], 'nothing on stdout');
    });
  }
});

describe('woolrx publish on SIGHUP', { timeout: 60_000 }, () => {
  it('withdraws the worker, exits 0 and leaves no segment, block, lock or temp file', async () => {
    const ns = uniqueNamespace('sighup');
    const uid = randomUUID();
    try {
      const watch = woolrx(['watch', '-n', ns, '--json']);
      const publisher = woolrx(['publish', '-n', ns, '-a', '127.0.0.1:7000', '--uid', uid]);
      assert.equal(await publisher.line(), uid);
      assert.equal(((await watch.event()) as { type: string }).type, 'worker-added');
      assert.deepEqual(await publisher.stop('SIGHUP'), { code: 0, signal: null });
      assert.equal(publisher.stderr, '');
      assert.equal(((await watch.event()) as { type: string }).type, 'worker-dropped');
      assert.deepEqual(await watch.stop('SIGHUP'), { code: 0, signal: null });
      assert.deepEqual(residue(ns, [uid]), []);
    } finally {
      sweep(ns, [uid]);
    }
  });
});

describe('woolrx: runtime failures name the fix (status 1, one line)', { timeout: 60_000 }, () => {
  it('a record larger than its block → --block-size', async () => {
    const ns = uniqueNamespace('block');
    const uid = randomUUID();
    try {
      const child = woolrx(['publish', '-n', ns, '-a', '127.0.0.1:7000', '--uid', uid, '--block-size', '64']);
      assert.deepEqual(await child.exited, { code: 1, signal: null }, child.stderr);
      assert.match(
        child.stderr,
        /^woolrx publish: the worker's metadata needs \d+ bytes but a block of namespace "[^"]+" holds 64: shorten --tag\/--extra, or pass a larger --block-size\n$/,
      );
    } finally {
      sweep(ns, [uid]);
    }
  });

  it('a full namespace → --capacity', async () => {
    const ns = uniqueNamespace('full');
    const [a, b] = [randomUUID(), randomUUID()];
    try {
      const first = woolrx(['publish', '-n', ns, '-a', '127.0.0.1:7000', '--uid', a, '--capacity', '1']);
      assert.equal(await first.line(), a);
      const second = woolrx(['publish', '-n', ns, '-a', '127.0.0.1:7001', '--uid', b, '--capacity', '1']);
      assert.deepEqual(await second.exited, { code: 1, signal: null }, second.stderr);
      assert.match(
        second.stderr,
        /^woolrx publish: namespace "[^"]+" is full \(1 workers\): stop a worker, or use a new namespace with a larger --capacity .*\n$/,
      );
      assert.deepEqual(await first.stop('SIGTERM'), { code: 0, signal: null });
    } finally {
      sweep(ns, [a, b]);
    }
  });

  it('etcd not running → start etcd, or --endpoints', async () => {
    const child = woolrx([
      'publish',
      '-b',
      'etcd',
      '--endpoints',
      'http://127.0.0.1:1',
      '--request-timeout',
      '1000',
      '-n',
      'x',
      '-a',
      'h:1',
    ]);
    assert.deepEqual(await child.exited, { code: 1, signal: null }, child.stderr);
    assert.match(
      child.stderr,
      /^woolrx publish: etcd is unreachable at http:\/\/127\.0\.0\.1:1: .*; start etcd, or pass --endpoints URL\n$/,
    );
  });
});
