/**
 * `woolrx watch|publish --backend lan` end to end: `publish` in network
 * namespace A, `watch --json` in namespace B (veth pair); same output
 * contract as the local backend. This file only orchestrates.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { Netns } from './netns.js';

// The real executable: --backend lan is in its registry.
const CLI = 'src/cli/main.ts';

function collect(child: ChildProcess): { out: () => string; err: () => string; exited: Promise<number | null> } {
  let out = '';
  let err = '';
  child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { out: () => out, err: () => err, exited };
}

async function until(check: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

function jsonLines(text: string): { type: string; worker: { uid: string; address: string; tags: string[] } }[] {
  return text
    .split('\n')
    .filter((line) => line.startsWith('{') && line !== '{"type":"synced"}')
    .map((line) => JSON.parse(line) as { type: string; worker: { uid: string; address: string; tags: string[] } });
}

describe('woolrx CLI with --backend lan', () => {
  let a: Netns;
  let b: Netns;
  before(() => {
    ({ a, b } = Netns.pair('cli', 3));
  });
  after(() => {
    a?.dispose();
    b?.dispose();
  });

  it('watch --json in one namespace sees publish from the other, then its withdrawal on SIGTERM', { timeout: 30_000 }, async () => {
    const watchProcess = b.spawnNode(CLI, ['watch', '--backend', 'lan', '--namespace', 'cli-ns', '--json', '--expire-after', '3000', '--requery-interval', '500']);
    const watch = collect(watchProcess);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const publisherProcess = a.spawnNode(CLI, ['publish', '--backend', 'lan', '--namespace', 'cli-ns', '--address', '0.0.0.0:7400', '--no-probe', '--tag', 'gpu', '--version', '3.1']);
    const publish = collect(publisherProcess);
    await until(() => /[0-9a-f-]{36}/.test(publish.out()), 'publish prints the uid');
    const uid = /([0-9a-f-]{36})/.exec(publish.out())?.[1] ?? '';
    await until(() => jsonLines(watch.out()).some((e) => e.worker.uid === uid), 'watch sees the worker');
    const added = jsonLines(watch.out()).find((e) => e.worker.uid === uid);
    assert.equal(added?.type, 'worker-added');
    assert.equal(added?.worker.address, '10.213.3.1:7400');
    assert.deepEqual(added?.worker.tags, ['gpu']);

    publisherProcess.kill('SIGTERM');
    assert.equal(await publish.exited, 0, publish.err());
    await until(() => jsonLines(watch.out()).some((e) => e.worker.uid === uid && e.type === 'worker-dropped'), 'watch sees the drop', 2000);
    // `ip netns exec` execs node: the child is the watcher itself.
    watchProcess.kill('SIGTERM');
    assert.equal(await watch.exited, 0, watch.err());
  });

  it('publish rejects a wildcard --advertise-host', { timeout: 20_000 }, async () => {
    const run = collect(a.spawnNode(CLI, ['publish', '--backend', 'lan', '--namespace', 'cli-ns', '--address', '10.213.3.1:7401', '--advertise-host', '0.0.0.0']));
    const code = await run.exited;
    assert.notEqual(code, 0);
    assert.match(run.err(), /^woolrx publish: --advertise-host must be the address peers should connect to, not a wildcard, got "0\.0\.0\.0"$/m);
  });
});
