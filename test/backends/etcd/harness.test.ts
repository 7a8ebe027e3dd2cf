// The etcd test harness itself: servers come up on free loopback ports and
// are always stopped, their data directories removed — by dispose(), and by
// the process handlers when a test process is interrupted, crashes or exits.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { runningEtcdProcesses, startEtcd } from './etcdHarness.js';
import { rawClient, waitFor } from './helpers.js';

const CHILDREN = join(dirname(fileURLToPath(import.meta.url)), 'children');

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('etcd test harness', { timeout: 60_000 }, () => {
  it('starts a working server on loopback, and dispose() stops it and removes its data', async () => {
    const before = runningEtcdProcesses();
    const etcd = await startEtcd();
    const member = etcd.members[0];
    assert.ok(member?.pid !== undefined);
    assert.match(etcd.endpoints[0] ?? '', /^http:\/\/127\.0\.0\.1:\d+$/);
    const client = rawClient(etcd.endpoints);
    await client.put('k').value('v');
    assert.equal(await client.get('k').string(), 'v');
    client.close();
    assert.equal(runningEtcdProcesses(), before + 1);
    const pid = member.pid;
    await etcd.dispose();
    assert.equal(alive(pid), false, 'the etcd process is gone');
    assert.equal(existsSync(member.dataDir), false, 'the data directory is gone');
    assert.equal(runningEtcdProcesses(), before);
    await etcd.dispose(); // idempotent
  });

  for (const mode of ['wait', 'throw', 'exit'] as const) {
    it(`cleans up when the test process ${mode === 'wait' ? 'is sent SIGTERM' : mode === 'throw' ? 'crashes' : 'exits'}`, async () => {
      const child = spawn(process.execPath, ['--import', 'tsx', join(CHILDREN, 'harnessHolder.ts'), mode], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      try {
        const line = await waitFor(
          () => /^\{.*\}$/m.exec(output)?.[0],
          () => `the child's etcd: ${output}`,
          20_000,
        );
        const { pid, dataDir } = JSON.parse(line) as { pid: number; dataDir: string };
        assert.ok(alive(pid));
        assert.ok(existsSync(dataDir));
        if (mode === 'wait') child.kill('SIGTERM');
        await exited;
        await waitFor(() => !alive(pid), 'the etcd process to be gone', 5000);
        assert.equal(existsSync(dataDir), false, 'the data directory is gone');
      } finally {
        child.kill('SIGKILL');
      }
    });
  }
});
