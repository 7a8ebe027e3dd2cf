/* eslint-disable no-control-regex -- the test looks for terminal escape codes */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { runCli } from '../../src/cli/runCli.js';
import { commands } from '../../src/cli/commands.js';
import type { CliRegistry } from '../../src/cli/parseCommandLine.js';
import { memoryDiscovery } from '../../src/backends/memory/memoryDiscovery.js';
import { MemoryRegistry } from '../../src/backends/memory/MemoryRegistry.js';
import { workerInfo } from '../../src/model/workerInfo.js';
import { Subject } from 'rxjs';
import { createDiscovery } from '../../src/discovery/createDiscovery.js';
import type { DiscoverySink } from '../../src/discovery/DiscoverySink.js';
import type { DiscoveryDiagnostic } from '../../src/discovery/types.js';
import { discoveryEvent } from '../../src/events/discoveryEvent.js';

/** A stream that says it is a terminal of a given size, and records what is written. */
class FakeTerminal extends Writable {
  text = '';
  readonly isTTY = true;
  readonly columns = 100;
  readonly rows = 20;
  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: () => void): void {
    this.text += chunk.toString('utf8');
    callback();
  }
}

class Sink extends Writable {
  text = '';
  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: () => void): void {
    this.text += chunk.toString('utf8');
    callback();
  }
}

const tick = (ms = 20): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('woolrx watch on a terminal', () => {
  it('redraws a live table in place; --json keeps NDJSON; a pipe keeps text lines', async () => {
    const memory = new MemoryRegistry();
    const registry: CliRegistry = {
      commands,
      backends: {
        mem: { summary: 'memory', flags: {}, create: (namespace) => memoryDiscovery(namespace, { registry: memory }) },
      },
    };
    const worker = workerInfo({
      uid: '6f1d2b1c-4c0b-4e7e-9a56-0c2b9d1d7e11',
      address: '127.0.0.1:50051',
      pid: 4242,
      version: '0.13.1',
      tags: ['gpu'],
      extra: { zone: 'eu-1' },
    });
    const run = (json: boolean, stdout: Writable) => {
      const controller = new AbortController();
      const stderr = new Sink();
      const done = runCli(
        ['watch', '-b', 'mem', '-n', 'pool', ...(json ? ['--json'] : [])],
        { stdout, stderr, signal: controller.signal },
        registry,
      );
      return { done, stop: () => controller.abort(), stderr };
    };
    const terminal = new FakeTerminal();
    const jsonTerminal = new FakeTerminal();
    const pipe = new Sink();
    const watchers = [run(false, terminal), run(true, jsonTerminal), run(false, pipe)];
    await tick();
    const publisher = memoryDiscovery('pool', { registry: memory }).publisher();
    await publisher.publish('worker-added', worker);
    await tick();
    await publisher.publish('worker-updated', workerInfo({ ...worker, tags: ['gpu', 'busy'] }));
    await tick();
    await publisher.close();
    await tick();
    for (const watcher of watchers) watcher.stop();
    assert.deepEqual(await Promise.all(watchers.map((watcher) => watcher.done)), [0, 0, 0]);
    for (const watcher of watchers) assert.equal(watcher.stderr.text, '');

    // The table: cursor hidden, frames drawn over each other, the row, then the cursor back.
    assert.ok(
      terminal.text.startsWith('\u001b[?25l\r\u001b[Jwoolrx watch · namespace pool'),
      JSON.stringify(terminal.text.slice(0, 80)),
    );
    assert.ok(terminal.text.endsWith('\u001b[?25h'));
    assert.match(terminal.text, /\u001b\[\d+F\u001b\[J/);
    assert.match(
      terminal.text,
      /6f1d2b1c 127\.0\.0\.1:50051 4242 0\.13\.1 +gpu +0s added 0s ago +zone=eu-1\n1 worker · gpu 1\n/,
    );
    assert.match(terminal.text, /6f1d2b1c .* busy,gpu .* updated 0s ago/);
    assert.match(terminal.text, /\n0 workers\n\u001b\[\?25h$/);
    // Every frame's lines fit the terminal's width.
    const lines = terminal.text
      .split(/\n|\u001b\[\d*F\u001b\[J|\r\u001b\[J/)
      .map((line) => line.replace(/\u001b\[\?25[hl]/g, ''));
    assert.ok(lines.every((line) => line.length <= 100));

    const json = jsonTerminal.text
      .trimEnd()
      .split('\n')
      .map((line) => (JSON.parse(line) as { type: string }).type);
    assert.deepEqual(
      json,
      ['synced', 'worker-added', 'worker-updated', 'worker-dropped'],
      'the empty pool synced, then the events',
    );
    assert.doesNotMatch(jsonTerminal.text, /\u001b/);

    assert.deepEqual(
      pipe.text
        .trimEnd()
        .split('\n')
        .map((line) => line.split(' ')[1]),
      ['+', '~', '-'],
    );
    assert.doesNotMatch(pipe.text, /\u001b/);
  });

  it('shows every event of a burst, as --json does: a drop and re-add inside one burst restarts the row', async () => {
    const worker = workerInfo({
      uid: '0b6a1c2d-1111-4e7e-9a56-0c2b9d1d7e11',
      address: '127.0.0.1:50051',
      pid: 7,
      version: '1.0.0',
    });
    const sinks = new Set<DiscoverySink>();
    const discovery = createDiscovery({
      namespace: 'pool',
      watch: (sink) => {
        sinks.add(sink);
        sink.next(discoveryEvent('worker-added', worker));
        sink.synced();
        return () => sinks.delete(sink);
      },
      publisher: () => {
        throw new TypeError('not used');
      },
      diagnostics: new Subject<DiscoveryDiagnostic>(),
    });
    const registry: CliRegistry = {
      commands,
      backends: { fake: { summary: 'fake', flags: {}, create: () => discovery } },
    };
    let clock = Date.parse('2026-12-04T08:00:00Z');
    const run = (json: boolean, stdout: Writable) => {
      const controller = new AbortController();
      const done = runCli(
        ['watch', '-b', 'fake', '-n', 'pool', ...(json ? ['--json'] : [])],
        { stdout, stderr: new Sink(), signal: controller.signal, now: () => new Date(clock) },
        registry,
      );
      return { done, stop: () => controller.abort() };
    };
    const terminal = new FakeTerminal();
    const jsonTerminal = new FakeTerminal();
    const watchers = [run(false, terminal), run(true, jsonTerminal)];
    await tick();
    clock += 5 * 60_000;
    for (const sink of sinks) {
      // One synchronous burst: the worker leaves and comes back unchanged.
      sink.next(discoveryEvent('worker-dropped', worker));
      sink.next(discoveryEvent('worker-added', worker));
    }
    await tick();
    for (const watcher of watchers) watcher.stop();
    assert.deepEqual(await Promise.all(watchers.map((watcher) => watcher.done)), [0, 0]);
    const json = jsonTerminal.text
      .trimEnd()
      .split('\n')
      .map((line) => (JSON.parse(line) as { type: string }).type);
    assert.deepEqual(
      json,
      ['worker-added', 'synced', 'worker-dropped', 'worker-added'],
      'the initial worker, synced, then the burst',
    );
    const frames = terminal.text.split(/\u001b\[\d+F\u001b\[J|\r\u001b\[J/);
    assert.match(frames.at(-1) ?? '', /0b6a1c2d .* added 0s ago/, 'the row restarted with the re-add');
  });
});
