// `woolrx list -n typo` on the local backend: 0 workers, and a line on stderr
// saying that no namespace of that name exists on this host — naming the one
// meant when it is within two edits, else those that exist.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { PassThrough } from 'node:stream';
import { after, describe, it } from 'node:test';
import { localDiscovery } from '../../src/backends/local/localDiscovery.js';
import { localNamespaces } from '../../src/cli/localNamespaces.js';
import { runCli } from '../../src/cli/runCli.js';
import { workerInfo } from '../../src/model/workerInfo.js';
import { sweep, uniqueNamespace } from './children.js';

async function list(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const code = await runCli(['list', ...argv], { stdout, stderr, signal: new AbortController().signal });
  return { code, out, err };
}

describe('woolrx list on a namespace that does not exist (local)', () => {
  const namespace = uniqueNamespace('hint');
  const uid = randomUUID();
  after(() => {
    assert.deepEqual(sweep(namespace, [uid]), [], 'nothing left behind');
  });

  it('says so, with the namespace meant or those that exist; an existing namespace gets no hint', async () => {
    const publisher = localDiscovery(namespace).publisher();
    try {
      await publisher.publish(
        'worker-added',
        workerInfo({ uid, address: '127.0.0.1:7000', pid: process.pid, version: '1.0.0' }),
      );
      assert.ok(
        localNamespaces()?.includes(namespace),
        'the namespace is found by its notification folder and segment',
      );

      // One character changed, never to itself (swapping the last two was
      // no typo when they were equal: one run in 36).
      const typo = `${namespace.slice(0, -1)}${namespace.endsWith('z') ? 'y' : 'z'}`;
      const close = await list(['-n', typo]);
      assert.equal(close.code, 0);
      assert.equal(close.out, 'UID  ADDRESS  PID  VERSION  TAGS  EXTRA\n0 workers\n');
      assert.equal(
        close.err,
        `woolrx list: no namespace ${JSON.stringify(typo)} on this host; did you mean ${JSON.stringify(namespace)}?\n`,
      );

      const far = await list(['-n', `nothing-like-it-${randomUUID()}`, '--json']);
      assert.equal(far.code, 0);
      assert.equal(far.out, '');
      assert.match(far.err, /^woolrx list: no namespace "nothing-like-it-[\w-]+" on this host; namespaces here: .*\n$/);
      assert.ok(far.err.includes(JSON.stringify(namespace)) || far.err.includes('in all)'), far.err);

      const existing = await list(['-n', namespace, '--json']);
      assert.equal(existing.code, 0);
      assert.equal((JSON.parse(existing.out) as { uid: string }).uid, uid);
      assert.equal(existing.err, '');
    } finally {
      await publisher.close();
    }
    assert.ok(!localNamespaces()?.includes(namespace), 'gone once its last publisher left');
  });
});
