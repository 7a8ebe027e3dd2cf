import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { workerInfo } from '../../src/model/workerInfo.js';
import type { WorkerInfo } from '../../src/model/types.js';
import { startEtcd } from '../backends/etcd/etcdHarness.js';
import type { EtcdCluster } from '../backends/etcd/etcdHarness.js';
import { Netns } from '../backends/lan/netns.js';
import { Child, cliMain, uniqueNamespace, woolrx } from './children.js';

// The CLI on the lan and etcd backends: the registry entry of each maps its
// flags onto the backend's options (a bad value comes back from the backend
// itself as a usage error), and `watch`/`publish` keep their output contract.

/** A worker as `watch --json` prints it: wool's default channel options left out. */
function json(worker: WorkerInfo): unknown {
  const { options: _options, ...fields } = JSON.parse(JSON.stringify(worker)) as Record<string, unknown>;
  return fields;
}

async function usageFailure(args: string[], reason: RegExp, env?: NodeJS.ProcessEnv): Promise<void> {
  const child = woolrx(args, env);
  assert.deepEqual(await child.exited, { code: 2, signal: null }, child.stderr);
  const [first, help, end] = child.stderr.split('\n');
  assert.match(first ?? '', reason);
  assert.match(help ?? '', /^Run 'woolrx( \w+)? --help' for the options\.$/);
  assert.equal(end, '', 'two lines, no usage dump');
  assert.deepEqual(child.pending(), []);
}

describe('woolrx CLI on --backend etcd', () => {
  let etcd: EtcdCluster;
  before(async () => {
    etcd = await startEtcd();
  });
  after(async () => {
    await etcd.dispose();
  });

  it('watch --json sees publish add a worker, then drop it when the publisher is interrupted', async () => {
    const ns = uniqueNamespace('cli-etcd');
    const uid = randomUUID();
    const endpoints = etcd.endpoints.join(',');
    const prefix = `/woolrx-cli-${randomUUID().slice(0, 8)}`;
    const watch = woolrx(['watch', '-b', 'etcd', '--endpoints', endpoints, '--prefix', prefix, '-n', ns, '--json']);
    const publisher = woolrx([
      'publish',
      '-b',
      'etcd',
      '--endpoints',
      endpoints,
      '--prefix',
      prefix,
      '--ttl',
      '5',
      '-n',
      ns,
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
      '--secure',
    ]);
    assert.equal(await publisher.line(), uid);
    const expected = workerInfo({
      uid,
      address: '10.0.0.5:7000',
      pid: 1,
      version: '1.0.0',
      tags: ['gpu'],
      extra: { zone: 'eu-1' },
      secure: true,
    });
    assert.deepEqual(await watch.event(), { type: 'worker-added', worker: json(expected) });
    assert.deepEqual(await publisher.stop('SIGINT'), { code: 0, signal: null });
    // etcd cannot tell a revoked lease from an expired one or a deleted key: no reason.
    assert.deepEqual(await watch.event(), { type: 'worker-dropped', worker: json(expected) });
    assert.deepEqual(await watch.stop('SIGTERM'), { code: 0, signal: null });
    assert.equal(watch.stderr, '');
    assert.equal(publisher.stderr, '');
  });

  it('refuses bad etcd flags with status 2', async () => {
    const ns = uniqueNamespace('cli-etcd-bad');
    await Promise.all([
      usageFailure(
        ['watch', '-b', 'etcd', '-n', ns, '--endpoints', 'ftp://x'],
        /^woolrx watch: .*endpoint.*ftp:\/\/x/i,
      ),
      usageFailure(['watch', '-b', 'etcd', '-n', ns, '--ttl', 'ten'], /^woolrx watch: --ttl: "ten" is not an integer$/),
      usageFailure(
        ['watch', '-b', 'etcd', '-n', ns, '--ca', '/nonexistent/ca.pem'],
        /^woolrx watch: --ca \/nonexistent\/ca.pem: no such file \(give the path of a PEM file\)$/,
      ),
      usageFailure(
        ['watch', '-b', 'etcd', '-n', ns, '--user', 'root'],
        /^woolrx watch: --user needs the password in \$WOOLRX_ETCD_PASSWORD$/,
        {
          WOOLRX_ETCD_PASSWORD: undefined,
        },
      ),
      usageFailure(['watch', '-b', 'etcd', '-n', 'a/b'], /^woolrx watch: .*namespace.*"a\/b"/),
      usageFailure(
        ['watch', '-n', ns, '--endpoints', 'http://127.0.0.1:2379'],
        /^woolrx watch: --endpoints is an option of --backend etcd, not local$/,
      ),
    ]);
  });
});

describe('woolrx CLI on --backend lan', () => {
  it('watch --json sees publish add a worker over mDNS, then drop it on SIGTERM (inside a network namespace)', async () => {
    const netns = Netns.create('cli');
    const inNetns = (args: string[]) =>
      new Child('ip', ['netns', 'exec', netns.name, process.execPath, '--import', 'tsx', cliMain, ...args]);
    try {
      const ns = uniqueNamespace('cli-lan');
      const uid = randomUUID();
      const watch = inNetns(['watch', '-b', 'lan', '-n', ns, '--json']);
      const publisher = inNetns([
        'publish',
        '-b',
        'lan',
        '--no-probe',
        '-n',
        ns,
        '-a',
        '127.0.0.1:7000',
        '--uid',
        uid,
        '--pid',
        '42',
        '--version',
        '2.1',
        '--tag',
        'gpu',
        '--extra',
        'zone=eu-1',
        '--secure',
      ]);
      assert.equal(await publisher.line(), uid);
      // mDNS carries no ChannelOptions: the subscriber sees the defaults.
      const expected = workerInfo({
        uid,
        address: '127.0.0.1:7000',
        pid: 42,
        version: '2.1',
        tags: ['gpu'],
        extra: { zone: 'eu-1' },
        secure: true,
      });
      assert.deepEqual(await watch.event(), { type: 'worker-added', worker: json(expected) });
      assert.deepEqual(await publisher.stop('SIGTERM'), { code: 0, signal: null });
      // An mDNS goodbye: the publisher withdrew it.
      assert.deepEqual(await watch.event(), { type: 'worker-dropped', worker: json(expected), reason: 'withdrawn' });
      assert.deepEqual(await watch.stop('SIGINT'), { code: 0, signal: null });
      assert.equal(watch.stderr, '');
    } finally {
      netns.dispose();
    }
  });

  it('hands its flags to lanDiscovery, whose TypeErrors become status 2', async () => {
    const ns = uniqueNamespace('cli-lan-bad');
    await Promise.all([
      usageFailure(
        ['publish', '-b', 'lan', '-n', ns, '-a', '10.0.0.5:7000', '--advertise-host', '0.0.0.0'],
        /^woolrx publish: --advertise-host must be the address peers should connect to, not a wildcard, got "0\.0\.0\.0"$/m,
      ),
      usageFailure(
        ['watch', '-b', 'lan', '-n', ns, '--expire-after', 'soon'],
        /^woolrx watch: --expire-after: "soon" is not an integer$/,
      ),
      usageFailure(
        ['watch', '-b', 'lan', '-n', ns, '--expire-after', '100', '--requery-interval', '200'],
        /^woolrx watch: --requery-interval must be below expireAfter \(100 ms\), or live workers would expire between queries, got 200/,
      ),
      usageFailure(
        ['watch', '-b', 'lan', '-n', ns, '--capacity', '4'],
        /^woolrx watch: --capacity is an option of --backend local, not lan$/,
      ),
    ]);
  });
});
