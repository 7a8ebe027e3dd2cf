// The latency row's children outlive no bench: a subscriber child whose parent goes away without a
// `stop` (the bench killed, or failed) unsubscribes and exits.
import assert from 'node:assert/strict';
import { fork } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { removeBenchNamespace } from '../../bench/local/removeBenchNamespace.js';

const ours = (dir: string): string[] =>
  readdirSync(dir).filter((name) => name.startsWith('woolrx-') || name.startsWith('wool-'));

describe('the latency row’s subscriber child', () => {
  it('exits once its parent disconnects, leaving nothing behind', async () => {
    const before = { shm: ours('/dev/shm'), tmp: ours(tmpdir()) };
    const namespace = `woolrx-bench-test-${randomUUID().slice(0, 8)}`;
    const child = fork(join(import.meta.dirname, '../../bench/local/subscriberProcess.ts'), [namespace, '1', '0'], {
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
      assert.deepEqual({ shm: ours('/dev/shm'), tmp: ours(tmpdir()) }, before, 'nothing left of its namespace');
    } finally {
      child.kill();
      await exited;
      // Killed (the test failed): what its subscription made is removed here.
      removeBenchNamespace(namespace);
    }
  });
});
