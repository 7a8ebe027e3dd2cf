/**
 * `woolrx watch|publish --backend lan` end to end: `publish` in network
 * namespace A, `watch --json` in namespace B (veth pair); same output
 * contract as the local backend. This file only orchestrates.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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

  it(
    'watch --json in one namespace sees publish from the other, then its withdrawal on SIGTERM',
    { timeout: 30_000 },
    async () => {
      const watchProcess = b.spawnNode(CLI, [
        'watch',
        '--backend',
        'lan',
        '--namespace',
        'cli-ns',
        '--json',
        '--expire-after',
        '3000',
        '--requery-interval',
        '500',
      ]);
      const watch = collect(watchProcess);
      await new Promise((resolve) => setTimeout(resolve, 300));
      const publisherProcess = a.spawnNode(CLI, [
        'publish',
        '--backend',
        'lan',
        '--namespace',
        'cli-ns',
        '--address',
        '0.0.0.0:7400',
        '--no-probe',
        '--tag',
        'gpu',
        '--version',
        '3.1',
      ]);
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
      await until(
        () => jsonLines(watch.out()).some((e) => e.worker.uid === uid && e.type === 'worker-dropped'),
        'watch sees the drop',
        2000,
      );
      // `ip netns exec` execs node: the child is the watcher itself.
      watchProcess.kill('SIGTERM');
      assert.equal(await watch.exited, 0, watch.err());
    },
  );

  it('publish rejects a wildcard --advertise-host', { timeout: 20_000 }, async () => {
    const run = collect(
      a.spawnNode(CLI, [
        'publish',
        '--backend',
        'lan',
        '--namespace',
        'cli-ns',
        '--address',
        '10.213.3.1:7401',
        '--advertise-host',
        '0.0.0.0',
      ]),
    );
    const code = await run.exited;
    assert.notEqual(code, 0);
    assert.match(
      run.err(),
      /^woolrx publish: --advertise-host must be the address peers should connect to, not a wildcard, got "0\.0\.0\.0"$/m,
    );
  });

  describe('--signing-key-file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'woolrx-key-'));
    const secret = randomBytes(32).toString('base64');
    const keyFile = (name: string, content: string, mode: number): string => {
      const path = join(dir, name);
      writeFileSync(path, content);
      chmodSync(path, mode);
      return path;
    };
    after(() => rmSync(dir, { recursive: true, force: true }));

    it(
      'a keyed watch sees a keyed publish; a watch with another key skips it with an unauthenticated-record diagnostic',
      { timeout: 30_000 },
      async () => {
        const key = keyFile('pool.key', `${secret}\n`, 0o600);
        const other = keyFile('other.key', randomBytes(32).toString('base64'), 0o600);
        const watchArgs = [
          'watch',
          '--backend',
          'lan',
          '--namespace',
          'cli-signed',
          '--json',
          '--requery-interval',
          '500',
          '--expire-after',
          '3000',
        ];
        const keyedProcess = b.spawnNode(CLI, [...watchArgs, '--signing-key-file', key]);
        const otherProcess = b.spawnNode(CLI, [...watchArgs, '--signing-key-file', other]);
        const keyed = collect(keyedProcess);
        const wrong = collect(otherProcess);
        await new Promise((resolve) => setTimeout(resolve, 300));
        const publisherProcess = a.spawnNode(CLI, [
          'publish',
          '--backend',
          'lan',
          '--namespace',
          'cli-signed',
          '--address',
          '10.213.3.1:7402',
          '--no-probe',
          '--signing-key-file',
          key,
        ]);
        const publish = collect(publisherProcess);
        await until(() => /[0-9a-f-]{36}/.test(publish.out()), 'publish prints the uid');
        const uid = /([0-9a-f-]{36})/.exec(publish.out())?.[1] ?? '';
        await until(() => jsonLines(keyed.out()).some((e) => e.worker.uid === uid), 'the keyed watch sees the worker');
        await until(
          () => wrong.err().includes('unauthenticated') || wrong.err().includes('does not hold'),
          'the other key reports it',
          5000,
        );
        assert.equal(jsonLines(wrong.out()).filter((e) => e.worker.uid === uid).length, 0);
        publisherProcess.kill('SIGTERM');
        assert.equal(await publish.exited, 0, publish.err());
        for (const process of [keyedProcess, otherProcess]) process.kill('SIGTERM');
        for (const run of [keyed, wrong, publish]) {
          await run.exited;
          assert.ok(!run.out().includes(secret) && !run.err().includes(secret), 'the key was printed');
        }
      },
    );

    it(
      'refuses a key file others can read (naming chmod 600) and a weak key, printing neither',
      { timeout: 20_000 },
      async () => {
        const open = keyFile('open.key', secret, 0o644);
        const weak = keyFile('weak.key', 'zq9Kzq9K\n', 0o600);
        const publishArgs = [
          'publish',
          '--backend',
          'lan',
          '--namespace',
          'cli-signed',
          '--address',
          '10.213.3.1:7403',
          '--no-probe',
          '--signing-key-file',
        ];
        const readable = collect(a.spawnNode(CLI, [...publishArgs, open]));
        assert.notEqual(await readable.exited, 0);
        assert.match(
          readable.err(),
          /--signing-key-file ".*open\.key": readable by other users \(mode 644\); run chmod 600 /,
        );
        const tooWeak = collect(a.spawnNode(CLI, [...publishArgs, weak]));
        assert.notEqual(await tooWeak.exited, 0);
        assert.match(tooWeak.err(), /signingKey must be .*at least 22 characters.*got a string of 8 characters/);
        for (const run of [readable, tooWeak])
          assert.ok(!run.err().includes(secret) && !run.err().includes('zq9Kzq9K'));
      },
    );
  });
});
