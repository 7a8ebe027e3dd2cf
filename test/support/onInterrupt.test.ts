// The interrupt handler of the test harnesses that make what a killed test
// would leave behind (network namespaces, etcd's data directories).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';

const onInterruptUrl = new URL('./onInterrupt.ts', import.meta.url).href;

/** A child whose clean-up takes 300 ms and then writes `done`; it says `ready` on stdout once installed. */
function child(done: string) {
  const script =
    `const { onInterrupt } = await import(${JSON.stringify(onInterruptUrl)});` +
    `const { writeFileSync } = await import('node:fs');` +
    `onInterrupt(() => { const end = Date.now() + 300; while (Date.now() < end); writeFileSync(${JSON.stringify(done)}, ''); });` +
    `setInterval(() => {}, 1000); process.stdout.write('ready\\n');`;
  return spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '--eval', script], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
}

describe('onInterrupt', () => {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`${signal} twice, the second during the clean-up: the clean-up finishes, then the process dies of ${signal}`, async () => {
      const dir = mkdtempSync(join(tmpdir(), 'woolrx-interrupt-'));
      try {
        const done = join(dir, 'done');
        const proc = child(done);
        const exited = new Promise<NodeJS.Signals | null>((resolve) => proc.once('exit', (_code, sig) => resolve(sig)));
        await new Promise<void>((resolve) => proc.stdout.once('data', () => resolve()));
        proc.kill(signal);
        await new Promise((resolve) => setTimeout(resolve, 100));
        proc.kill(signal);
        assert.equal(await exited, signal);
        assert.ok(existsSync(done), 'the clean-up ran to its end');
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});
