/* eslint-disable no-control-regex -- the test looks for terminal escape codes */
// `woolrx relay` on a terminal (in process, through runCli, with memory
// backends registered under their own names): one live status line redrawn
// in place, each skipped worker on a line of its own above it, no JSON;
// `--json` on the same terminal prints NDJSON; the signal withdraws and the
// last status (nothing relayed) stays on screen.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import { firstValueFrom } from 'rxjs';
import { memoryDiscovery } from '../../src/backends/memory/memoryDiscovery.js';
import { MemoryRegistry } from '../../src/backends/memory/MemoryRegistry.js';
import { commands } from '../../src/cli/commands.js';
import type { CliRegistry } from '../../src/cli/parseCommandLine.js';
import { runCli } from '../../src/cli/runCli.js';
import { workerInfo } from '../../src/model/workerInfo.js';

/** A stream that says it is a terminal, and records what is written. */
class FakeTerminal extends Writable {
  text = '';
  readonly isTTY = true;
  readonly columns = 160;
  readonly rows = 20;
  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: () => void): void {
    this.text += chunk.toString('utf8');
    callback();
  }
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function until(condition: () => boolean, what: () => string, timeout = 5000): Promise<void> {
  const deadline = Date.now() + timeout;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what()}`);
    await sleep(5);
  }
}

describe('woolrx relay on a terminal', () => {
  it('keeps one live status line, skipped workers above it; --json prints NDJSON; the signal withdraws', async () => {
    const memory = new MemoryRegistry();
    const registry: CliRegistry = {
      commands,
      backends: {
        mem: { summary: 'memory', flags: {}, create: (namespace) => memoryDiscovery(namespace, { registry: memory }) },
      },
    };
    const reachable = workerInfo({ uid: crypto.randomUUID(), address: '10.1.1.1:7000', pid: 1, version: '1' });
    const loopback = workerInfo({ uid: crypto.randomUUID(), address: '127.0.0.1:7001', pid: 2, version: '1' });
    const publisher = memoryDiscovery('src', { registry: memory }).publisher();
    await publisher.publish('worker-added', reachable);
    await publisher.publish('worker-added', loopback);
    const target = memoryDiscovery('dst', { registry: memory });

    for (const json of [false, true]) {
      const terminal = new FakeTerminal();
      const stderr = new FakeTerminal();
      const controller = new AbortController();
      const args = [
        'relay',
        '--from',
        'mem',
        '-n',
        'src',
        '--to',
        'mem',
        '--to-namespace',
        'dst',
        '--relay-id',
        'tty',
        ...(json ? ['--json'] : []),
      ];
      const done = runCli(args, { stdout: terminal, stderr, signal: controller.signal }, registry);
      await until(
        () => /"synced":true|target up, synced/.test(terminal.text),
        () => `synced: ${JSON.stringify(terminal.text)}`,
      );
      assert.deepEqual([...(await firstValueFrom(target.snapshots())).keys()], [reachable.uid]);
      controller.abort();
      assert.equal(await done, 0);
      assert.equal((await firstValueFrom(target.snapshots())).size, 0, 'withdrawn');
      if (json) {
        const items = terminal.text
          .trimEnd()
          .split('\n')
          .map((line) => JSON.parse(line) as { type: string });
        assert.ok(items.some((item) => item.type === 'relay-skipped'));
        assert.deepEqual(items.at(-1), {
          type: 'relay-status',
          relayed: 0,
          skipped: 0,
          pending: 0,
          target: 'up',
          synced: true,
        });
        assert.equal(stderr.text, '');
        continue;
      }
      const text = terminal.text;
      assert.doesNotMatch(text, /\{"type"/, 'no JSON on a terminal');
      assert.match(
        text,
        new RegExp(
          `^\\r\\x1b\\[2Kskipped worker ${loopback.uid}: its address 127\\.0\\.0\\.1:7001 is on a loopback host, which other hosts cannot reach; pass advertiseHost \\(CLI: --advertise-host\\) with this host's address\\n\\r\\x1b\\[2Kwoolrx relay · `,
        ),
        'the skipped worker on its own line, then the live line redrawn',
      );
      assert.match(
        text,
        /\r\x1b\[2Kwoolrx relay · mem\/src → mem\/dst · relayed 1 · skipped 1 · target up, synced · Ctrl-C to stop/,
      );
      assert.match(
        text,
        /\r\x1b\[2Kwoolrx relay · mem\/src → mem\/dst · relayed 0 · skipped 0 · target up, synced · Ctrl-C to stop\n$/,
        'the last status stays, then a newline',
      );
      assert.equal(text.split('\n').length, 3, 'two lines in all: the skipped worker and the last status');
      assert.equal(stderr.text, '');
    }
    await publisher.close();
  });
});
