// The `--backend etcd` CLI entry (src/cli/etcdBackend.ts), run through
// runCli with a registry holding it: flags map onto etcdDiscovery's options,
// watch and publish keep their output contract, bad values are usage errors.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { PassThrough } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { etcdDiscovery } from '../../../src/backends/etcd/etcdDiscovery.js';
import { commands } from '../../../src/cli/commands.js';
import { etcdBackend } from '../../../src/cli/etcdBackend.js';
import { runCli } from '../../../src/cli/runCli.js';
import { startEtcd, type EtcdCluster } from './etcdHarness.js';
import { makeWorker, Recorder, uniqueNamespace, waitFor } from './helpers.js';
import { startTcpProxy } from './tcpProxy.js';

const registry = { commands, backends: { etcd: etcdBackend } };

/** Runs the CLI in-process; `stop()` is SIGINT. */
function cli(argv: string[]): { out: () => string; err: () => string; stop: () => void; done: Promise<number> } {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const controller = new AbortController();
  const done = runCli(argv, { stdout, stderr, signal: controller.signal }, registry);
  return { out: () => out, err: () => err, stop: () => controller.abort(), done };
}

describe('woolrx CLI --backend etcd (etcdBackend)', { timeout: 60_000 }, () => {
  let etcd: EtcdCluster;
  before(async () => {
    etcd = await startEtcd();
  });
  after(async () => {
    await etcd.dispose();
  });

  it('publish registers the worker under --prefix with --ttl, and withdraws it when interrupted', async () => {
    const namespace = uniqueNamespace('cli');
    const prefix = `/cli-${randomUUID().slice(0, 8)}`;
    const uid = randomUUID();
    const watcher = etcdDiscovery(namespace, { endpoints: etcd.endpoints, prefix });
    const recorder = new Recorder(watcher.events());
    const run = cli([
      'publish',
      '-b',
      'etcd',
      '--endpoints',
      etcd.endpoints.join(','),
      '--prefix',
      prefix,
      '--ttl',
      '5',
      '-n',
      namespace,
      '-a',
      '10.0.0.5:7000',
      '--uid',
      uid,
      '--pid',
      '1',
      '--version',
      '1.0.0',
      '--tag',
      'gpu',
      '--extra',
      'zone=eu-1',
    ]);
    try {
      await waitFor(
        () => run.out() === `${uid}\n`,
        () => `the uid on stdout: ${run.out()} ${run.err()}`,
      );
      await waitFor(() => recorder.workers.get(uid), 'the worker');
      const worker = recorder.workers.get(uid);
      assert.equal(worker?.address, '10.0.0.5:7000');
      assert.deepEqual(worker?.tags, ['gpu']);
      assert.deepEqual(worker?.extra, { zone: 'eu-1' });
      run.stop();
      assert.equal(await run.done, 0);
      await waitFor(() => recorder.workers.size === 0, 'the drop');
      assert.equal(run.err(), '');
    } finally {
      run.stop();
      recorder.unsubscribe();
    }
  });

  it('watch --json prints each event as one JSON line (several --endpoints flags work too, host:port as etcdctl writes it)', async () => {
    const namespace = uniqueNamespace('cli-watch');
    const [endpoint] = etcd.endpoints as [string];
    const hostPort = endpoint.replace(/^http:\/\//, '');
    assert.match(hostPort, /^127\.0\.0\.1:\d+$/);
    const run = cli([
      'watch',
      '-b',
      'etcd',
      '--endpoints',
      hostPort,
      '--endpoints',
      endpoint,
      '-n',
      namespace,
      '--json',
    ]);
    const publisher = etcdDiscovery(namespace, { endpoints: etcd.endpoints }).publisher();
    try {
      const worker = makeWorker();
      await publisher.publish('worker-added', worker);
      await waitFor(
        () => run.out().includes('worker-added'),
        () => `a line: ${run.err()}`,
      );
      // The empty namespace first: the synced marker, then the event (wool's default channel options left out).
      const { options: _options, ...fields } = JSON.parse(JSON.stringify(worker)) as Record<string, unknown>;
      assert.deepEqual(
        run
          .out()
          .trimEnd()
          .split('\n')
          .map((line) => JSON.parse(line) as unknown),
        [{ type: 'synced' }, { type: 'worker-added', worker: fields }],
      );
      run.stop();
      assert.equal(await run.done, 0);
    } finally {
      run.stop();
      await publisher.close();
    }
  });

  it('list reaches etcd at [::1]:port (IPv6 host:port)', async () => {
    const namespace = uniqueNamespace('cli-v6');
    const [endpoint] = etcd.endpoints as [string];
    const proxy = await startTcpProxy(Number(new URL(endpoint).port), '::1');
    const publisher = etcdDiscovery(namespace, { endpoints: etcd.endpoints }).publisher();
    try {
      const worker = makeWorker();
      await publisher.publish('worker-added', worker);
      const run = cli(['list', '-b', 'etcd', '--endpoints', `[::1]:${proxy.port}`, '-n', namespace, '--json']);
      assert.equal(await run.done, 0, run.err());
      assert.equal((JSON.parse(run.out()) as { uid: string }).uid, worker.uid);
      assert.ok(proxy.accepted > 0, 'through the IPv6 proxy');
    } finally {
      await publisher.close();
      await proxy.close();
    }
  });

  it('reports bad flag values as usage errors (status 2)', async () => {
    const namespace = uniqueNamespace('cli-bad');
    const cases: [string[], RegExp, NodeJS.ProcessEnv?][] = [
      [['--endpoints', 'ftp://x'], /^woolrx watch: --endpoints must be URLs like .*, got "ftp:\/\/x"$/m],
      [['--ttl', 'ten'], /^woolrx watch: --ttl: "ten" is not an integer$/m],
      [['--ttl', '0'], /^woolrx watch: --ttl: 0 is below 1$/m],
      [
        ['--ca', '/nonexistent/ca.pem'],
        /^woolrx watch: --ca \/nonexistent\/ca.pem: no such file \(give the path of a PEM file\)$/m,
      ],
      [['--ca', '/etc/hostname'], /tls.*https/], // TLS material with http:// endpoints
      [
        ['--endpoints', '127.0.0.1'],
        /^woolrx watch: --endpoints must be URLs like .*, or host:port, got "127\.0\.0\.1"$/m,
      ],
      [['--user', 'root'], /^woolrx watch: --user needs the password in \$WOOLRX_ETCD_PASSWORD$/m],
    ];
    const saved = process.env['WOOLRX_ETCD_PASSWORD'];
    delete process.env['WOOLRX_ETCD_PASSWORD'];
    try {
      for (const [flags, message] of cases) {
        const run = cli(['watch', '-b', 'etcd', '-n', namespace, ...flags]);
        assert.equal(await run.done, 2, `${flags.join(' ')}: ${run.err()}`);
        assert.match(run.err(), message);
        assert.equal(run.out(), '');
      }
      const slash = cli(['watch', '-b', 'etcd', '-n', 'a/b']);
      assert.equal(await slash.done, 2);
      assert.match(
        slash.err(),
        /^woolrx watch: namespace must be a non-empty string without "\/", "\.\." or NUL, got "a\/b"$/m,
      );
    } finally {
      if (saved !== undefined) process.env['WOOLRX_ETCD_PASSWORD'] = saved;
    }
  });
});
