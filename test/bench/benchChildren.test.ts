// The latency row's children outlive no bench: a subscriber child whose parent goes away without a
// `stop` (the bench killed, or failed) unsubscribes and exits; so does the floor's bare subscriber.
import assert from 'node:assert/strict';
import { fork } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { bareNamespace } from '../../bench/local/bareNamespace.js';
import { removeBenchNamespace } from '../../bench/local/removeBenchNamespace.js';

const ours = (dir: string): string[] =>
  readdirSync(dir).filter((name) => name.startsWith('woolrx-') || name.startsWith('wool-'));

/**
 * Forks a bench child, waits for its `ready`, disconnects from it as a bench that goes away does, and
 * asserts that it exits on its own within 10 s; kills it otherwise.
 */
async function exitsWithItsParent(script: string, args: string[]): Promise<void> {
  const child = fork(join(import.meta.dirname, '../../bench/local', script), args, {
    execArgv: ['--import', 'tsx', '--expose-gc'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  try {
    await new Promise<void>((resolve, reject) => {
      child.on('message', (m: Record<string, unknown>) => ('ready' in m ? resolve() : undefined));
      child.once('exit', (code) => reject(new Error(`exited (${code}) before ready`)));
    });
    child.disconnect();
    const code = await Promise.race([
      exited,
      new Promise<'running'>((resolve) => setTimeout(() => resolve('running'), 10_000).unref()),
    ]);
    assert.equal(code, 0, 'it exits, on its own, once the bench is gone');
  } finally {
    child.kill();
    await exited;
  }
}

describe('the latency row’s subscriber child', () => {
  it('exits once its parent disconnects, leaving nothing behind', async () => {
    const before = { shm: ours('/dev/shm'), tmp: ours(tmpdir()) };
    const namespace = `woolrx-bench-test-${randomUUID().slice(0, 8)}`;
    try {
      await exitsWithItsParent('subscriberProcess.ts', [namespace, '1', '0']);
      assert.deepEqual({ shm: ours('/dev/shm'), tmp: ours(tmpdir()) }, before, 'nothing left of its namespace');
    } finally {
      // Killed (the test failed): what its subscription made is removed here.
      removeBenchNamespace(namespace);
    }
  });
});

describe('the latency floor’s bare subscriber child', () => {
  it('exits once its parent disconnects', async () => {
    const ns = bareNamespace(8);
    try {
      await exitsWithItsParent('bareSubscriberProcess.ts', [ns.dir, ns.notify, '1', '0', '8']);
    } finally {
      ns.remove();
    }
  });
});
