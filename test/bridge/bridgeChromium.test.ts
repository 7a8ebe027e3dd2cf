import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { chromium } from 'playwright-core';
import type { BrowserContext } from 'playwright-core';

// The bridge in a browser: woolrx's core and bridge bundled for the browser
// (no Node built-in), the owner in a page, the receiver in a Web Worker;
// the port is the DOM `Worker` on one side and the worker's global scope on
// the other (addEventListener + MessageEvent.data, structured clone).
// `workersFrom` (events) and `discoveryFrom` (the read contract: "loading",
// then the complete initial state at once).

let bundle = '';
let context: BrowserContext | undefined;
const profile = mkdtempSync(join(tmpdir(), 'woolrx-chromium-bridge-'));

before(async () => {
  const result = await build({
    stdin: {
      contents:
        "export * from './src/index.ts';\nexport { discoveryFrom, exposeWorkers, workersFrom, BridgeClosedError } from './src/bridge/index.ts';\n",
      resolveDir: process.cwd(),
      loader: 'ts',
    },
    bundle: true,
    write: false,
    platform: 'browser',
    format: 'iife',
    globalName: 'woolrx',
    target: 'es2022',
    logLevel: 'silent',
  });
  bundle = result.outputFiles.map((file) => file.text).join('\n');
  context = await chromium.launchPersistentContext(profile, {
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
});

after(async () => {
  await context?.close();
  rmSync(profile, { recursive: true, force: true });
});

// Runs in the Web Worker: two subscriptions over one port; reports what each sees.
const receiver = `
const { workersFrom } = self.woolrx;
const workers$ = workersFrom(self);
const subs = {};
const report = (name) => ({
  next: (e) => self.postMessage({ report: name, kind: 'next', type: e.type, uid: e.worker.uid, tags: [...e.worker.tags], frozen: Object.isFrozen(e.worker) }),
  error: (err) => self.postMessage({ report: name, kind: 'error', name: err.name, code: err.code, message: err.message }),
  complete: () => self.postMessage({ report: name, kind: 'complete' }),
});
self.addEventListener('message', (event) => {
  const cmd = event.data && event.data.cmd;
  if (cmd === 'subscribe') subs[event.data.name] = workers$.subscribe(report(event.data.name));
  if (cmd === 'unsubscribe') { subs[event.data.name].unsubscribe(); self.postMessage({ report: event.data.name, kind: 'released' }); }
});
self.postMessage({ report: 'worker', kind: 'ready' });
`;

// Runs in the Web Worker: a page that shows "loading" until its reader's first
// snapshot of GPU workers, one per channel; reports each thing it shows.
const RENDERER = `
const { discoveryFrom } = self.woolrx;
const gpu = (worker) => worker.tags.includes('gpu');
self.addEventListener('message', (event) => {
  if (!event.data || event.data.cmd !== 'watch') return;
  for (const channel of ['woolrx', 'empty']) {
    self.postMessage({ channel, shown: 'loading' });
    discoveryFrom(self, { channel }).snapshots(gpu).subscribe((snapshot) => {
      const shown = [...snapshot.values()].map((w) => w.address).sort().join(' ') || '(no GPU worker)';
      self.postMessage({ channel, shown });
    });
  }
});
`;

describe('bridge in Chromium (page ↔ Web Worker)', () => {
  it('cold per subscription, independent subscriptions, release, errors with code', async () => {
    assert.ok(context !== undefined);
    const page = await context.newPage();
    await page.setContent('<!doctype html><title>bridge</title>');
    // tsx compiles this file keeping function names (esbuild's __name helper),
    // which page.evaluate's serialized function then calls: provide it.
    await page.addScriptTag({ content: `${bundle}\nwindow.__name = (fn) => fn;` });
    const log = await page.evaluate(
      async ({ bundle: code, receiver: workerCode }) => {
        type Report = { report: string; kind: string; [key: string]: unknown };
        interface PageWorker {
          postMessage(message: unknown): void;
          addEventListener(type: 'message', listener: (event: { data: unknown }) => void): void;
          terminate(): void;
        }
        const page = globalThis as unknown as {
          woolrx: {
            exposeWorkers: (...args: unknown[]) => unknown;
            workerInfo: (init: unknown) => unknown;
            memoryDiscovery: unknown;
          };
          Worker: new (url: string) => PageWorker;
        };
        const w = page.woolrx;
        const blob = new Blob([code, '\n', workerCode], { type: 'text/javascript' });
        const worker = new page.Worker(URL.createObjectURL(blob));
        const reports: Report[] = [];
        const waiters: (() => void)[] = [];
        worker.addEventListener('message', (event) => {
          const data = event.data as Report;
          if (data && typeof data.report === 'string') {
            reports.push(data);
            for (const wake of waiters.splice(0)) wake();
          }
        });
        const until = async (test: () => boolean): Promise<void> => {
          const deadline = Date.now() + 10_000;
          while (!test()) {
            if (Date.now() > deadline) throw new Error(`timeout; reports: ${JSON.stringify(reports)}`);
            await new Promise<void>((resolve) => {
              waiters.push(resolve);
              setTimeout(resolve, 50);
            });
          }
        };
        const count = (name: string, kind: string) =>
          reports.filter((r) => r.report === name && r.kind === kind).length;

        // The owner: a memory backend in the page, its events wrapped to count upstream subscriptions
        // and to fail on demand.
        const discovery = (
          w.memoryDiscovery as (ns: string) => {
            events(): { subscribe(o: unknown): { unsubscribe(): void } };
            publisher(): { publish(t: string, wk: unknown): Promise<void> };
          }
        )('chromium');
        let active = 0;
        let failAll: ((error: unknown) => void)[] = [];
        const source = {
          subscribe(observer: { next(v: unknown): void; error(e: unknown): void; complete(): void }) {
            active += 1;
            const inner = discovery.events().subscribe(observer);
            const fail = (error: unknown) => observer.error(error);
            failAll.push(fail);
            return {
              unsubscribe() {
                active -= 1;
                failAll = failAll.filter((f) => f !== fail);
                inner.unsubscribe();
              },
            };
          },
        };
        const exposure = w.exposeWorkers(source, worker) as { unsubscribe(): void };
        void exposure;
        const publisher = discovery.publisher();
        const info = (n: number, tags: string[]) =>
          w.workerInfo({
            uid: `0000000${n}-0000-4000-8000-000000000000`,
            address: `10.0.0.${n}:1`,
            pid: n,
            version: '1',
            tags,
          });
        await until(() => count('worker', 'ready') === 1);
        await publisher.publish('worker-added', info(1, ['gpu']));
        const activeBefore = active;

        worker.postMessage({ cmd: 'subscribe', name: 'A' });
        worker.postMessage({ cmd: 'subscribe', name: 'B' });
        await until(() => count('A', 'next') === 1 && count('B', 'next') === 1);
        const activeWithTwo = active;
        await publisher.publish('worker-added', info(2, ['cpu']));
        await until(() => count('A', 'next') === 2 && count('B', 'next') === 2);
        worker.postMessage({ cmd: 'unsubscribe', name: 'A' });
        await until(() => count('A', 'released') === 1);
        await until(() => active === 1);
        await publisher.publish('worker-dropped', info(1, ['gpu']));
        await until(() => count('B', 'next') === 3);
        const err = Object.assign(new Error('lock busy'), { name: 'LockTimeoutError', code: 'WOOLRX_LOCK_TIMEOUT' });
        for (const fail of [...failAll]) fail(err);
        await until(() => count('B', 'error') === 1);
        worker.terminate();
        return { reports, activeBefore, activeWithTwo, activeAfter: active };
      },
      { bundle, receiver },
    );

    assert.equal(log.activeBefore, 0, 'cold: nothing subscribed upstream before a subscription');
    assert.equal(log.activeWithTwo, 2, 'one upstream per subscription');
    assert.equal(log.activeAfter, 0);
    const of = (name: string) => log.reports.filter((r) => r.report === name).map(({ report: _r, ...rest }) => rest);
    const uid = (n: number) => `0000000${n}-0000-4000-8000-000000000000`;
    assert.deepEqual(of('A'), [
      { kind: 'next', type: 'worker-added', uid: uid(1), tags: ['gpu'], frozen: true },
      { kind: 'next', type: 'worker-added', uid: uid(2), tags: ['cpu'], frozen: true },
      { kind: 'released' },
    ]);
    assert.deepEqual(of('B'), [
      { kind: 'next', type: 'worker-added', uid: uid(1), tags: ['gpu'], frozen: true },
      { kind: 'next', type: 'worker-added', uid: uid(2), tags: ['cpu'], frozen: true },
      { kind: 'next', type: 'worker-dropped', uid: uid(1), tags: ['gpu'], frozen: true },
      { kind: 'error', name: 'LockTimeoutError', code: 'WOOLRX_LOCK_TIMEOUT', message: 'lock busy' },
    ]);
    await page.close();
  });

  it('discoveryFrom(port).snapshots(gpu): "loading", then both GPU workers in the first snapshot; an empty pool\'s first snapshot is empty', async () => {
    assert.ok(context !== undefined);
    const page = await context.newPage();
    await page.setContent('<!doctype html><title>bridge</title>');
    await page.addScriptTag({ content: `${bundle}\nwindow.__name = (fn) => fn;` });
    const shown = await page.evaluate(
      async ({ bundle: code, reader }) => {
        interface PageWorker {
          postMessage(message: unknown): void;
          addEventListener(type: 'message', listener: (event: { data: unknown }) => void): void;
          terminate(): void;
        }
        type Discovery = { publisher(): { publish(t: string, wk: unknown): Promise<void> } };
        const page = globalThis as unknown as {
          woolrx: {
            exposeWorkers: (source: unknown, port: unknown, options?: unknown) => { unsubscribe(): void };
            workerInfo: (init: unknown) => unknown;
            memoryDiscovery: (ns: string) => Discovery;
          };
          Worker: new (url: string) => PageWorker;
        };
        const w = page.woolrx;
        const info = (n: number, tags: string[]) =>
          w.workerInfo({
            uid: `0000000${n}-0000-4000-8000-000000000000`,
            address: `10.0.0.${n}:1`,
            pid: n,
            version: '1',
            tags,
          });
        // Two GPU workers and a CPU worker before anything is exposed; another namespace stays empty.
        const pool = w.memoryDiscovery('chromium-synced');
        const publisher = pool.publisher();
        await publisher.publish('worker-added', info(2, ['gpu']));
        await publisher.publish('worker-added', info(3, ['cpu']));
        await publisher.publish('worker-added', info(4, ['gpu']));
        const worker = new page.Worker(
          URL.createObjectURL(new Blob([code, '\n', reader], { type: 'text/javascript' })),
        );
        const exposures = [
          w.exposeWorkers(pool, worker),
          w.exposeWorkers(w.memoryDiscovery('chromium-empty'), worker, { channel: 'empty' }),
        ];
        const reports: { channel: string; shown: string }[] = [];
        const done = new Promise<void>((resolve, reject) => {
          setTimeout(() => reject(new Error(`timeout; reports: ${JSON.stringify(reports)}`)), 10_000);
          worker.addEventListener('message', (event) => {
            const data = event.data as { channel?: string; shown?: string };
            // The port also carries the bridge's own messages.
            if (typeof data.channel !== 'string' || typeof data.shown !== 'string') return;
            reports.push({ channel: data.channel, shown: data.shown });
            if (reports.filter((r) => r.shown !== 'loading').length === 2) resolve();
          });
        });
        worker.postMessage({ cmd: 'watch' });
        await done;
        worker.terminate();
        for (const exposure of exposures) exposure.unsubscribe();
        return reports;
      },
      { bundle, reader: RENDERER },
    );
    const of = (channel: string) => shown.filter((r) => r.channel === channel).map((r) => r.shown);
    assert.deepEqual(of('woolrx'), ['loading', '10.0.0.2:1 10.0.0.4:1'], JSON.stringify(shown));
    assert.deepEqual(of('empty'), ['loading', '(no GPU worker)']);
    await page.close();
  });
});
