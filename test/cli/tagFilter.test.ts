// `--tag` on list and watch: only workers having every tag given, with the
// in/out transitions of filterWorkers on watch; an empty tag is bad input.
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import { MemoryRegistry } from '../../src/backends/memory/MemoryRegistry.js';
import { memoryDiscovery } from '../../src/backends/memory/memoryDiscovery.js';
import { commands } from '../../src/cli/commands.js';
import type { CliRegistry } from '../../src/cli/parseCommandLine.js';
import { runCli } from '../../src/cli/runCli.js';
import { workerInfo } from '../../src/model/workerInfo.js';

function worker(n: number, tags: string[]) {
  return workerInfo({
    uid: `00000000-0000-4000-8000-00000000000${n}`,
    address: `10.0.0.${n}:7000`,
    pid: n,
    version: '1.0.0',
    tags,
  });
}

function cli(argv: string[], memory: MemoryRegistry) {
  const registry: CliRegistry = {
    commands,
    backends: {
      local: { summary: 'memory', flags: {}, create: (namespace) => memoryDiscovery(namespace, { registry: memory }) },
    },
  };
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

const uidsOf = (ndjson: string): unknown[] =>
  ndjson
    .trimEnd()
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      const item = JSON.parse(line) as { type?: string; uid?: string; worker?: { uid: string } };
      return item.worker === undefined ? (item.uid ?? item.type) : `${item.type} ${item.worker.uid.slice(-1)}`;
    });

describe('--tag on list and watch', () => {
  it('list prints only the workers having every --tag', async () => {
    const memory = new MemoryRegistry();
    const publisher = memoryDiscovery('pool', { registry: memory }).publisher();
    try {
      for (const w of [
        worker(1, ['gpu', 'eu']),
        worker(2, ['gpu']),
        worker(3, ['eu']),
        worker(4, ['gpu', 'eu', 'big']),
      ]) {
        await publisher.publish('worker-added', w);
      }
      const both = cli(['list', '-n', 'pool', '--tag', 'gpu', '--tag', 'eu', '--json'], memory);
      assert.equal(await both.done, 0, both.err());
      assert.deepEqual(uidsOf(both.out()), [worker(1, []).uid, worker(4, []).uid]);
      const one = cli(['list', '-n', 'pool', '--tag', 'gpu'], memory);
      assert.equal(await one.done, 0, one.err());
      assert.match(one.out(), /\n3 workers\n$/);
      const none = cli(['list', '-n', 'pool', '--tag', 'tpu', '--json'], memory);
      assert.equal(await none.done, 0);
      assert.equal(none.out(), '');
    } finally {
      await publisher.close();
    }
  });

  it('watch --tag: a worker enters when it gains the tag and leaves (dropped) when it loses it', async () => {
    const memory = new MemoryRegistry();
    const publisher = memoryDiscovery('pool', { registry: memory }).publisher();
    const run = cli(['watch', '-n', 'pool', '--tag', 'gpu', '--json'], memory);
    try {
      while (!run.out().includes('synced')) await new Promise((resolve) => setTimeout(resolve, 5));
      await publisher.publish('worker-added', worker(1, ['gpu']));
      await publisher.publish('worker-added', worker(2, ['cpu']));
      await publisher.publish('worker-updated', worker(2, ['cpu', 'gpu']));
      await publisher.publish('worker-updated', worker(1, []));
      await publisher.publish('worker-dropped', worker(2, ['cpu', 'gpu']));
      run.stop();
      assert.equal(await run.done, 0, run.err());
      assert.deepEqual(uidsOf(run.out()), [
        'synced',
        'worker-added 1',
        'worker-added 2',
        'worker-dropped 1',
        'worker-dropped 2',
      ]);
    } finally {
      run.stop();
      await publisher.close();
    }
  });

  it('an empty --tag is bad input (status 2)', async () => {
    for (const command of ['list', 'watch']) {
      const run = cli([command, '-n', 'pool', '--tag', ''], new MemoryRegistry());
      assert.equal(await run.done, 2);
      assert.equal(
        run.err(),
        `woolrx ${command}: --tag needs a non-empty tag\nRun 'woolrx ${command} --help' for the options.\n`,
      );
    }
  });
});
