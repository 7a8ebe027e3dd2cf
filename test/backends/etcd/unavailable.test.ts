// Unreachable etcd is reported as a WoolrxError users can act on: a code, the
// endpoints, and etcd3's error as the cause — for publishers (a rejection),
// subscriptions (diagnostics while they retry) and the CLI (one line).
// "Unreachable" is a closed port on 127.0.0.1.
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import { EtcdConnection } from '../../../src/backends/etcd/EtcdConnection.js';
import { EtcdUnavailableError } from '../../../src/backends/etcd/EtcdUnavailableError.js';
import { etcdDiscovery } from '../../../src/backends/etcd/etcdDiscovery.js';
import { commands } from '../../../src/cli/commands.js';
import { etcdBackend } from '../../../src/cli/etcdBackend.js';
import { runCli } from '../../../src/cli/runCli.js';
import { WoolrxError } from '../../../src/errors/WoolrxError.js';
import { freePort } from './etcdHarness.js';
import { makeWorker, uniqueNamespace, waitFor } from './helpers.js';
import { woolrx } from '../../cli/children.js';

describe('etcd unreachable', { timeout: 60_000 }, () => {
  it('publish rejects with an EtcdUnavailableError naming the endpoint, with the cause', async () => {
    const endpoint = `http://127.0.0.1:${await freePort()}`;
    const discovery = etcdDiscovery(uniqueNamespace('down'), { endpoints: endpoint });
    const publisher = discovery.publisher();
    const error: unknown = await publisher.publish('worker-added', makeWorker()).then(
      () => assert.fail('published to a closed port'),
      (reason: unknown) => reason,
    );
    assert.ok(error instanceof EtcdUnavailableError, `got ${String(error)}`);
    assert.ok(error instanceof WoolrxError);
    assert.equal(error.code, 'WOOLRX_ETCD_UNAVAILABLE');
    assert.deepEqual(error.endpoints, [endpoint]);
    assert.match(error.message, new RegExp(`^etcd is unreachable at ${endpoint}: .*ECONNREFUSED 127\\.0\\.0\\.1:\\d+`));
    assert.doesNotMatch(error.message, /\n|Resolution note/);
    assert.ok(error.cause instanceof Error, 'etcd3 error kept as the cause');
    await publisher.close();
    assert.equal(EtcdConnection.of(discovery)?.open, false, 'nothing left open');
  });

  it('a subscription reports it on diagnostics and keeps retrying; unsubscribing releases the client', async () => {
    const endpoint = `http://127.0.0.1:${await freePort()}`;
    const discovery = etcdDiscovery(uniqueNamespace('down'), { endpoints: endpoint });
    const diagnostics: unknown[] = [];
    const seen = discovery.diagnostics.subscribe((diagnostic) => diagnostics.push(diagnostic.error));
    let failed: unknown;
    const subscription = discovery.events().subscribe({ error: (error: unknown) => (failed = error) });
    const reported = await waitFor(
      () => diagnostics.find((error) => error instanceof EtcdUnavailableError),
      'an EtcdUnavailableError diagnostic',
    );
    assert.ok(reported instanceof EtcdUnavailableError);
    assert.deepEqual(reported.endpoints, [endpoint]);
    assert.equal(failed, undefined, 'the stream does not error');
    subscription.unsubscribe();
    seen.unsubscribe();
    assert.equal(EtcdConnection.of(discovery)?.open, false);
  });

  it('the CLI prints one line with the endpoint and the cause, and exits non-zero', async () => {
    const endpoint = `http://127.0.0.1:${await freePort()}`;
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    let err = '';
    stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    const code = await runCli(
      [
        'publish',
        '--backend',
        'etcd',
        '--endpoints',
        endpoint,
        '--namespace',
        uniqueNamespace('cli'),
        '--address',
        '127.0.0.1:50051',
      ],
      { stdout, stderr, signal: new AbortController().signal },
      { commands, backends: { etcd: etcdBackend } },
    );
    assert.notEqual(code, 0);
    const lines = err.split('\n').filter((line) => line !== '');
    assert.equal(lines.length, 1, `stderr: ${err}`);
    assert.match(lines[0] ?? '', new RegExp(`^woolrx publish: etcd is unreachable at ${endpoint}: .*ECONNREFUSED`));
  });

  it('woolrx list exits 1 with one line once etcd has not answered for --request-timeout (the process ends)', async () => {
    const endpoint = `http://127.0.0.1:${await freePort()}`;
    const started = Date.now();
    const child = woolrx([
      'list',
      '-b',
      'etcd',
      '--endpoints',
      endpoint,
      '-n',
      uniqueNamespace('list'),
      '--request-timeout',
      '1500',
    ]);
    try {
      assert.deepEqual(await child.exited, { code: 1, signal: null }, child.stderr);
      const elapsed = Date.now() - started;
      assert.ok(elapsed >= 1500 && elapsed < 12_000, `exited after ${elapsed} ms`);
      const lines = child.stderr.split('\n').filter((line) => line !== '');
      assert.equal(lines.length, 1, `stderr: ${child.stderr}`);
      assert.match(
        lines[0] ?? '',
        new RegExp(
          `^woolrx list: etcd is unreachable at ${endpoint}: .*ECONNREFUSED.*; start etcd, or pass --endpoints URL \\(gave up after 1500 ms\\)$`,
        ),
      );
      assert.deepEqual(child.pending(), [], 'nothing on stdout');
    } finally {
      await child.stop('SIGKILL');
    }
  });

  it('woolrx watch keeps waiting but says at once that etcd is unreachable', async () => {
    const endpoint = `http://127.0.0.1:${await freePort()}`;
    const child = woolrx(['watch', '-b', 'etcd', '--endpoints', endpoint, '-n', uniqueNamespace('watch'), '--json']);
    try {
      await waitFor(
        () => child.stderr.includes('\n'),
        () => `a line on stderr: ${child.stderr}`,
        10_000,
      );
      assert.equal(
        child.stderr,
        `woolrx watch: etcd unreachable at ${endpoint}, retrying; start etcd or pass --endpoints URL\n`,
      );
      assert.equal(child.process.exitCode, null, 'still watching');
      assert.deepEqual(await child.stop('SIGINT'), { code: 0, signal: null });
    } finally {
      await child.stop('SIGKILL');
    }
  });
});
