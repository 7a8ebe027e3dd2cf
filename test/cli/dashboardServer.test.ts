import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { PassThrough } from 'node:stream';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { memoryDiscovery } from '../../src/backends/memory/memoryDiscovery.js';
import { MemoryRegistry } from '../../src/backends/memory/MemoryRegistry.js';
import { localDiscovery } from '../../src/backends/local/localDiscovery.js';
import { shortHash } from '../../src/backends/local/names/shortHash.js';
import { startDashboard } from '../../src/cli/dashboard/startDashboard.js';
import { testWorker } from '../../src/testing/testWorker.js';
import { added } from '../../src/testing/added.js';
import { workerInfo } from '../../src/model/workerInfo.js';
import { formatEventJson } from '../../src/cli/formatEventJson.js';
import { commands } from '../../src/cli/commands.js';
import { runCli } from '../../src/cli/runCli.js';
import { etcdDiscovery } from '../../src/backends/etcd/etcdDiscovery.js';
import { freePort } from '../backends/etcd/etcdHarness.js';

const scratch = mkdtempSync(join(tmpdir(), 'woolrx-dashboard-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

/** Reads `/events` until `done(text)` holds or the stream ends; aborts after 10 s. */
async function readEvents(url: string, done: (text: string) => boolean): Promise<{ text: string; ended: boolean }> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), 10_000);
  const response = await fetch(new URL('events', url), { signal: controller.signal });
  assert.equal(response.status, 200);
  assert.ok(response.body, 'a body');
  const reader = response.body.getReader() as ReadableStreamDefaultReader<Uint8Array>;
  const decoder = new TextDecoder();
  let text = '';
  let ended = false;
  try {
    for (;;) {
      const { value, done: end } = await reader.read();
      if (end) {
        ended = true;
        break;
      }
      text += decoder.decode(value, { stream: true });
      if (done(text)) break;
    }
  } finally {
    clearTimeout(timer);
    controller.abort();
  }
  return { text, ended };
}

/** The SSE message kinds in order: `hello`, `data`, `synced`, `failure`. */
function kinds(text: string): string[] {
  return text
    .split('\n\n')
    .filter((block) => block.trim() !== '' && !block.startsWith(':'))
    .map((block) => /^event: (\w+)/m.exec(block)?.[1] ?? (block.includes('data: ') ? 'data' : 'other'));
}

describe('startDashboard /events', () => {
  it('a stream that errors synchronously on subscribe becomes one failure message; the server lives on', async () => {
    const plainFile = join(scratch, 'not-a-directory');
    writeFileSync(plainFile, '');
    const namespace = `d${randomUUID().slice(0, 8)}`;
    const dashboard = await startDashboard(localDiscovery(namespace, { tmpdir: plainFile }), { port: 0 });
    const lockDir = `/dev/shm/woolrx-lock-${shortHash(namespace)}`;
    try {
      const { text, ended } = await readEvents(dashboard.url, () => false);
      assert.equal(ended, true, 'the server ends the stream after the failure');
      assert.deepEqual(kinds(text), ['hello', 'failure']);
      assert.match(
        text,
        /event: failure\ndata: \{"message":"localDiscovery: tmpdir \S+ is not a directory; pass an existing directory/,
      );
      assert.equal(dashboard.connections, 0);
      // Still serving.
      assert.equal((await fetch(dashboard.url)).status, 200);
    } finally {
      await dashboard.close();
      // The failed subscription leaves no lock folder behind.
      const left = existsSync(lockDir);
      rmSync(lockDir, { recursive: true, force: true });
      assert.equal(left, false, `${lockDir} left behind`);
    }
  });

  it('an empty pool: hello, then synced with no worker before it ("no workers", not "loading")', async () => {
    const discovery = memoryDiscovery('empty', { registry: new MemoryRegistry() });
    const dashboard = await startDashboard(discovery, { port: 0 });
    try {
      const { text } = await readEvents(dashboard.url, (received) => received.includes('event: synced'));
      assert.deepEqual(kinds(text), ['hello', 'synced']);
    } finally {
      await dashboard.close();
    }
  });

  it('current workers come before synced, changes after it; a page leaving releases its watch', async () => {
    const registry = new MemoryRegistry();
    const discovery = memoryDiscovery('pool', { registry });
    const publisher = discovery.publisher();
    await publisher.publish('worker-added', testWorker(1));
    await publisher.publish('worker-added', testWorker(2));
    const dashboard = await startDashboard(discovery, { port: 0 });
    try {
      const reading = readEvents(dashboard.url, (received) => kinds(received).length >= 5);
      while (dashboard.connections === 0 || registry.watcherCount('pool') === 0)
        await new Promise((resolve) => setTimeout(resolve, 10));
      await new Promise((resolve) => setTimeout(resolve, 50));
      await publisher.publish('worker-dropped', testWorker(1));
      const { text } = await reading;
      assert.deepEqual(kinds(text), ['hello', 'data', 'data', 'synced', 'data']);
      assert.match(text.split('event: synced')[1] ?? '', /"type":"worker-dropped"/);
      while (dashboard.connections > 0) await new Promise((resolve) => setTimeout(resolve, 10));
      assert.equal(registry.watcherCount('pool'), 0, 'the page left: its watch is released');
    } finally {
      await dashboard.close();
      await publisher.close();
    }
  });

  it("each event's data is exactly the watch --json line (wool's default channel options left out)", async () => {
    const registry = new MemoryRegistry();
    const discovery = memoryDiscovery('pool', { registry });
    const publisher = discovery.publisher();
    const plain = testWorker(1);
    const tuned = workerInfo({ ...testWorker(2), options: { ...plain.options, keepaliveTimeMs: 1234 } });
    await publisher.publish('worker-added', plain);
    await publisher.publish('worker-added', tuned);
    const dashboard = await startDashboard(discovery, { port: 0 });
    try {
      const { text } = await readEvents(dashboard.url, (received) => received.includes('event: synced'));
      const data = text
        .split('\n')
        .filter((line) => line.startsWith('data: {"type"'))
        .map((line) => line.slice('data: '.length));
      assert.deepEqual(data, [formatEventJson(added(plain)), formatEventJson(added(tuned))]);
      assert.doesNotMatch(data[0] ?? '', /"options"/);
      assert.match(data[1] ?? '', /"options":\{"keepaliveTimeMs":1234\}/);
    } finally {
      await dashboard.close();
      await publisher.close();
    }
  });
});

describe('startDashboard with a backend that cannot be reached', () => {
  it('tells the page why it is still loading (event: status), while the stream keeps retrying', async () => {
    const endpoint = `http://127.0.0.1:${await freePort()}`;
    const discovery = etcdDiscovery('pool', { endpoints: endpoint });
    const dashboard = await startDashboard(discovery, { port: 0 });
    try {
      const { text } = await readEvents(dashboard.url, (received) => received.includes('event: status'));
      assert.deepEqual(kinds(text), ['hello', 'status']);
      assert.match(
        text,
        new RegExp(
          `event: status\ndata: \\{"message":"etcd unreachable at ${endpoint}, retrying; start etcd or pass --endpoints URL"\\}\n\n$`,
        ),
      );
    } finally {
      await dashboard.close();
    }
  });
});

describe('woolrx dashboard --port', () => {
  it('a busy port is one line saying so and naming --port, status 1', async () => {
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    const { port } = busy.address() as AddressInfo;
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    let err = '';
    stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    const memory = new MemoryRegistry();
    try {
      const code = await runCli(
        ['dashboard', '-n', 'pool', '--port', String(port)],
        { stdout, stderr, signal: new AbortController().signal },
        {
          commands,
          backends: {
            local: {
              summary: 'memory',
              flags: {},
              create: (namespace) => memoryDiscovery(namespace, { registry: memory }),
            },
          },
        },
      );
      assert.equal(code, 1);
      assert.equal(
        err,
        `woolrx dashboard: port ${port} is in use on 127.0.0.1; pick another with --port, or leave --port out for a free one\n`,
      );
    } finally {
      await new Promise((resolve) => busy.close(resolve));
    }
  });
});
