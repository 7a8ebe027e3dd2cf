import { after, describe, it } from 'node:test';
import { randomUUID } from 'node:crypto';
import assert from 'node:assert/strict';
import { workerInfo } from '../../src/model/workerInfo.js';
import type { WorkerInfo } from '../../src/model/types.js';
import { packageVersion } from '../../src/cli/packageVersion.js';
import { sweep, uniqueNamespace, woolrx } from './children.js';

// Real processes, real shared memory: `woolrx watch` and `woolrx publish`
// run from source as separate children on the local backend. Worker uids
// are random: block names depend on the uid only, not on the namespace, so
// fixed uids would collide with other test files running at the same time.

const used: { namespace: string; uids: string[] }[] = [];
function namespace(label: string, ...uids: string[]): string {
  const ns = uniqueNamespace(`cli-${label}`);
  used.push({ namespace: ns, uids });
  return ns;
}

/** A worker as `watch --json` prints it: wool's default channel options left out. */
function json(worker: WorkerInfo): unknown {
  const { options: _options, ...fields } = JSON.parse(JSON.stringify(worker)) as Record<string, unknown>;
  return fields;
}

after(() => {
  const left: string[] = [];
  for (const { namespace: ns, uids } of used) {
    left.push(...sweep(ns, uids));
  }
  assert.deepEqual(left, [], 'objects, locks or notification files left behind');
});

describe('woolrx CLI, end to end on the local backend', () => {
  it('watch sees publish add a worker with every field, then drop it on SIGTERM; all exit 0', async () => {
    const uid = randomUUID();
    const ns = namespace('watch', uid);
    const watchJson = woolrx(['watch', '--namespace', ns, '--json']);
    const watchText = woolrx(['watch', '-n', ns]);
    const publisher = woolrx([
      'publish',
      '--namespace',
      ns,
      '--address',
      '[::1]:9000',
      '--uid',
      uid,
      '--version',
      'ü-2',
      '--tag',
      'gpu',
      '--tag',
      'cpu',
      '--extra',
      'zone=eu-1',
      '--extra',
      'expr=a=b',
      '--secure',
    ]);
    assert.equal(await publisher.line(), uid);
    const expected = workerInfo({
      uid,
      address: '[::1]:9000',
      pid: publisher.process.pid ?? -1,
      version: 'ü-2',
      tags: ['gpu', 'cpu'],
      extra: { zone: 'eu-1', expr: 'a=b' },
      secure: true,
    });
    assert.deepEqual(await watchJson.event(), { type: 'worker-added', worker: json(expected) });
    const text = await watchText.line();
    assert.match(
      text,
      new RegExp(
        `^\\d\\d:\\d\\d:\\d\\d\\.\\d{3} \\+ ${uid.slice(0, 8)} \\[::1\\]:9000 +${expected.pid} ü-2 +cpu,gpu +expr="a=b",zone=eu-1 secure$`,
      ),
    );

    assert.deepEqual(await publisher.stop('SIGTERM'), { code: 0, signal: null });
    assert.deepEqual(await watchJson.event(), { type: 'worker-dropped', worker: json(expected), reason: 'withdrawn' });
    assert.match(await watchText.line(), new RegExp(` - ${uid.slice(0, 8)} .* \\(withdrawn\\)$`));

    assert.deepEqual(await watchJson.stop('SIGINT'), { code: 0, signal: null });
    assert.deepEqual(await watchText.stop('SIGTERM'), { code: 0, signal: null });
    for (const child of [watchJson, watchText, publisher]) assert.equal(child.stderr, '');
    assert.deepEqual(watchJson.pending(), []);
  });

  it("watch --json says why a worker was dropped: 'process-gone' for a publisher killed outright, 'withdrawn' for one that withdrew", async () => {
    const killed = randomUUID();
    const polite = randomUUID();
    const ns = namespace('reason', killed, polite);
    const watch = woolrx(['watch', '-n', ns, '--json']);
    const a = woolrx(['publish', '-n', ns, '-a', '127.0.0.1:7001', '--uid', killed]);
    const b = woolrx(['publish', '-n', ns, '-a', '127.0.0.1:7002', '--uid', polite]);
    assert.equal(await a.line(), killed);
    assert.equal(await b.line(), polite);
    const seen = new Set([
      ((await watch.event()) as { worker: WorkerInfo }).worker.uid,
      ((await watch.event()) as { worker: WorkerInfo }).worker.uid,
    ]);
    assert.deepEqual(seen, new Set([killed, polite]));
    assert.deepEqual(await a.stop('SIGKILL'), { code: null, signal: 'SIGKILL' });
    const gone = (await watch.event()) as { type: string; worker: WorkerInfo; reason?: string };
    assert.deepEqual([gone.type, gone.worker.uid, gone.reason], ['worker-dropped', killed, 'process-gone']);
    assert.deepEqual(await b.stop('SIGTERM'), { code: 0, signal: null });
    const left = (await watch.event()) as { type: string; worker: WorkerInfo; reason?: string };
    assert.deepEqual([left.type, left.worker.uid, left.reason], ['worker-dropped', polite, 'withdrawn']);
    assert.deepEqual(await watch.stop('SIGTERM'), { code: 0, signal: null });
    assert.match(watch.stderr, new RegExp(`^(woolrx watch: recovered: Worker ${killed} is gone .*\\n)?$`));
  });

  it('publish defaults: a random uid printed on stdout, its own pid, woolrx version', async () => {
    const ns = namespace('defaults');
    const publisher = woolrx(['publish', '-n', ns, '-a', '127.0.0.1:7000']);
    const uid = await publisher.line();
    used.at(-1)?.uids.push(uid);
    assert.match(uid, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const watch = woolrx(['watch', '-n', ns, '--json']);
    const added = (await watch.event()) as { type: string; worker: WorkerInfo };
    assert.equal(added.type, 'worker-added');
    assert.equal(added.worker.uid, uid);
    assert.equal(added.worker.pid, publisher.process.pid);
    assert.equal(added.worker.version, packageVersion);
    assert.deepEqual(await publisher.stop('SIGINT'), { code: 0, signal: null });
    assert.equal(((await watch.event()) as { type: string }).type, 'worker-dropped');
    assert.deepEqual(await watch.stop('SIGTERM'), { code: 0, signal: null });
  });

  it('watch exits 0, quietly, when its stdout pipe is closed (| head -1)', async () => {
    const first = randomUUID();
    const second = randomUUID();
    const ns = namespace('epipe', first, second);
    const watch = woolrx(['watch', '-n', ns, '--json']);
    const a = woolrx(['publish', '-n', ns, '-a', 'h:1', '--uid', first]);
    assert.equal(await a.line(), first);
    assert.equal(((await watch.event()) as { worker: WorkerInfo }).worker.uid, first);
    watch.process.stdout.destroy(); // the reader goes away, like `head -1` after one line
    const b = woolrx(['publish', '-n', ns, '-a', 'h:2', '--uid', second]);
    assert.equal(await b.line(), second);
    const exit = await Promise.race([
      watch.exited,
      new Promise((resolve) => setTimeout(() => resolve('still running'), 15_000).unref()),
    ]);
    assert.deepEqual(exit, { code: 0, signal: null });
    assert.equal(watch.stderr, '');
    assert.deepEqual(await a.stop(), { code: 0, signal: null });
    assert.deepEqual(await b.stop(), { code: 0, signal: null });
  });

  it('bad arguments: a one-line reason then one line pointing at --help on stderr, nothing on stdout, exit 2', async () => {
    const ns = namespace('bad');
    const cases: [string[], RegExp][] = [
      [[], /^woolrx: missing command$/],
      [['launch'], /^woolrx: unknown command "launch"$/],
      [['watch'], /^woolrx watch: missing --namespace$/],
      [['watch', '-n', ns, '--bogus'], /^woolrx watch: unknown option --bogus$/],
      [
        ['watch', '-n', ns, '--backend', 'zookeeper'],
        /^woolrx watch: unknown backend "zookeeper" \(known: local, lan, etcd\)$/,
      ],
      [['publish', '-n', ns], /^woolrx publish: missing --address$/],
      [['publish', '-n', ns, '-a', 'h:1', '--uid', 'not-a-uuid'], /^woolrx publish: Invalid worker uid: "not-a-uuid"/],
      [['publish', '-n', ns, '-a', 'nohost'], /^woolrx publish: Invalid worker address: "nohost"/],
      [['publish', '-n', ns, '-a', 'h:1', '--pid', 'x1'], /^woolrx publish: --pid: "x1" is not an integer$/],
      [['publish', '-n', ns, '-a', 'h:1', '--extra', 'zone'], /^woolrx publish: --extra "zone": expected KEY=VALUE$/],
      [['watch', '-n', '../escape'], /^woolrx watch: .*\.\.\/escape/],
    ];
    await Promise.all(
      cases.map(async ([args, reason]) => {
        const child = woolrx(args);
        const exit = await child.exited;
        assert.deepEqual(exit, { code: 2, signal: null }, `${args.join(' ')}: ${child.stderr}`);
        const [first, help, end] = child.stderr.split('\n');
        assert.match(first ?? '', reason);
        assert.match(help ?? '', /^Run 'woolrx( \w+)? --help' for the options\.$/);
        assert.equal(end, '', 'two lines, no usage dump');
        assert.deepEqual(child.pending(), [], 'stdout stays empty');
      }),
    );
  });

  it('--help and --version print on stdout and exit 0', async () => {
    const help = woolrx(['--help']);
    const commandHelp = woolrx(['publish', '--help']);
    const version = woolrx(['--version']);
    assert.deepEqual(await help.exited, { code: 0, signal: null });
    assert.deepEqual(await commandHelp.exited, { code: 0, signal: null });
    assert.deepEqual(await version.exited, { code: 0, signal: null });
    assert.equal(await help.line(), 'Usage: woolrx <command> [options]');
    assert.match(await commandHelp.line(), /^Usage: woolrx publish --namespace NS --address HOST:PORT/);
    assert.equal(await version.line(), packageVersion);
    for (const child of [help, commandHelp, version]) assert.equal(child.stderr, '');
  });
});
