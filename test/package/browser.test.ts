// The Electron example (docs/examples/electron), built from the packed
// tarball as a user builds it, runs in Debian's Chromium: its preload and
// renderer are bundled for the browser from the installed package (only
// Electron's `ipcRenderer` is a stand-in), its main process is bundled for
// Node. The page gets the worker events from this Node process over the
// bridge: `exposeWorkers(localDiscovery(ns).events(), port)` here, a
// WebSocket in between (the test's stand-in for Electron's IPC), a real
// MessagePort in the page. The test publishes through the package's
// woolrx/local and asserts what the page shows after an add, an update and
// a drop, and that closing the page releases the upstream subscription.
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { chromium, type Browser } from 'playwright-core';
import type * as Rx from 'rxjs';
import type { Observable } from 'rxjs';
import { WebSocketServer } from 'ws';
import type * as Bridge from '../../src/bridge/index.js';
import type * as Core from '../../src/index.js';
import type * as Local from '../../src/backends/local/index.js';
import { sweep, uniqueNamespace } from '../cli/children.js';
import { REPO, packWorkspace, type PackedWorkspace } from './packedProject.js';

let ws: PackedWorkspace;
let app: string;
let browser: Browser | undefined;
let server: Server | undefined;
const namespace = uniqueNamespace('browser');
const uids: string[] = [];

/** Electron's preload API, as far as the example's preload uses it; the relay below plays the main process. */
const ELECTRON_STANDIN = `
const listeners = new Map();
export const ipcRenderer = { on(channel, listener) { listeners.set(channel, listener); } };
globalThis.electronStandIn = { send(channel, event) { listeners.get(channel)?.(event); } };
`;

/** The main process's half, in the page: a MessageChannel whose port1 is relayed over a WebSocket to Node. */
const RELAY = `
const socket = new WebSocket('ws://' + location.host + '/bridge');
const { port1, port2 } = new MessageChannel();
socket.addEventListener('message', (event) => port1.postMessage(JSON.parse(event.data)));
port1.onmessage = (event) => socket.send(JSON.stringify(event.data));
socket.addEventListener('open', () => globalThis.electronStandIn.send('woolrx:port', { ports: [port2] }));
`;

async function bundle(entry: string, outfile: string, options: { platform: 'browser' | 'node'; format: 'esm' | 'iife' | 'cjs'; alias?: Record<string, string>; external?: string[] }): Promise<string[]> {
  const result = await build({
    entryPoints: [entry],
    absWorkingDir: app,
    outfile,
    bundle: true,
    minify: options.platform === 'browser',
    platform: options.platform,
    format: options.format,
    target: options.platform === 'browser' ? 'es2022' : 'node20',
    alias: options.alias ?? {},
    external: options.external ?? [],
    logLevel: 'silent',
  });
  return result.warnings.map((warning) => warning.text);
}

describe('the Electron example from the tarball, in Chromium', { timeout: 300_000 }, () => {
  before(async () => {
    ws = packWorkspace('browser');
    app = ws.project('electron-app', 'module');
    ws.npmInstall(app, [ws.tarball, 'rxjs@^7.8.0']);
    mkdirSync(join(app, 'src'));
    for (const file of readdirSync(join(REPO, 'docs/examples/electron'))) copyFileSync(join(REPO, 'docs/examples/electron', file), join(app, 'src', file));
    writeFileSync(join(app, 'electron-standin.mjs'), ELECTRON_STANDIN);
    writeFileSync(join(app, 'relay.mjs'), RELAY);
    browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
  });

  after(async () => {
    await browser?.close();
    await new Promise<void>((done) => (server === undefined ? done() : server.close(() => done())));
    const left = sweep(namespace, uids);
    ws?.dispose();
    assert.deepEqual(left, [], 'shared-memory objects left behind');
  });

  it('bundles: renderer and preload for the browser, main for Node, no warning, nothing of Node in the page', async (t) => {
    const page = join(app, 'page');
    assert.deepEqual(await bundle('src/renderer.ts', join(page, 'renderer.js'), { platform: 'browser', format: 'esm' }), []);
    assert.deepEqual(await bundle('src/preload.ts', join(page, 'preload.js'), { platform: 'browser', format: 'iife', alias: { electron: './electron-standin.mjs' } }), []);
    assert.deepEqual(await bundle('relay.mjs', join(page, 'relay.js'), { platform: 'browser', format: 'esm' }), []);
    // As the guide says: a sandboxed preload is one CommonJS file; the main process keeps packages external.
    assert.deepEqual(await bundle('src/preload.ts', join(app, 'out/preload.cjs'), { platform: 'node', format: 'cjs', external: ['electron'] }), []);
    assert.deepEqual(await bundle('src/main.ts', join(app, 'out/main.js'), { platform: 'node', format: 'esm', external: ['electron', 'woolrx', 'rxjs'] }), []);
    t.diagnostic(`renderer.js (rxjs included, minified): ${(readFileSync(join(page, 'renderer.js')).length / 1000).toFixed(1)} KB`);
    // The page loads the preload first (Electron runs it before the page), the relay after the renderer.
    const html = readFileSync(join(app, 'src/index.html'), 'utf8')
      .replace('</head>', '  <script src="./preload.js"></script>\n</head>')
      .replace('</body>', '  <script type="module" src="./relay.js"></script>\n</body>');
    assert.notEqual(html, readFileSync(join(app, 'src/index.html'), 'utf8'));
    writeFileSync(join(page, 'index.html'), html);
  });

  it('shows the GPU workers after an add, an update and a drop, and releases the upstream when the page closes', async () => {
    assert.ok(browser !== undefined);
    const load = <T>(entry: string): Promise<T> => import(pathToFileURL(join(app, 'node_modules/woolrx/dist', entry)).href) as Promise<T>;
    const { workerInfo } = await load<typeof Core>('index.js');
    const { exposeWorkers } = await load<typeof Bridge>('bridge/index.js');
    const { localDiscovery } = await load<typeof Local>('local/index.js');
    const { finalize } = (await import(pathToFileURL(join(app, 'node_modules/rxjs/dist/esm5/index.js')).href)) as typeof Rx;

    const open = { upstream: 0 };
    const upstream = (): number => open.upstream;
    const events$ = localDiscovery(namespace, { pollInterval: 100 }).events();
    const workers$: Observable<Core.DiscoveryEvent> = new (events$.constructor as typeof Observable<Core.DiscoveryEvent>)((subscriber) => {
      open.upstream += 1;
      return events$.pipe(finalize(() => (open.upstream -= 1))).subscribe(subscriber);
    });

    const page = join(app, 'page');
    const types: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript' };
    server = createServer((request, response) => {
      const name = (request.url ?? '/').split('?')[0]?.slice(1) || 'index.html';
      if (name === 'favicon.ico') return void response.writeHead(204).end();
      if (!/^[\w.-]+$/.test(name)) return void response.writeHead(404).end();
      try {
        const body = readFileSync(join(page, name));
        response.writeHead(200, { 'content-type': types[name.slice(name.lastIndexOf('.'))] ?? 'application/octet-stream' }).end(body);
      } catch {
        response.writeHead(404).end();
      }
    });
    const sockets = new WebSocketServer({ server, path: '/bridge' });
    sockets.on('connection', (socket) => {
      const listeners = new Map<string, Set<(value: unknown) => void>>();
      const emit = (type: string, value?: unknown): void => listeners.get(type)?.forEach((listener) => listener(value));
      socket.on('message', (data: Buffer) => emit('message', JSON.parse(data.toString('utf8'))));
      const port = {
        postMessage: (message: unknown) => socket.send(JSON.stringify(message)),
        on: (type: string, listener: (value: unknown) => void) => void (listeners.get(type) ?? listeners.set(type, new Set()).get(type))?.add(listener),
        off: (type: string, listener: (value: unknown) => void) => void listeners.get(type)?.delete(listener),
      };
      const exposure = exposeWorkers(workers$, port);
      socket.on('close', () => {
        exposure.unsubscribe();
        emit('close');
      });
    });
    await new Promise<void>((done) => server?.listen(0, '127.0.0.1', done));
    const address = server.address();
    assert.ok(address !== null && typeof address === 'object');

    const context = await browser.newContext();
    const tab = await context.newPage();
    const problems: string[] = [];
    tab.on('pageerror', (error) => problems.push(error.message));
    tab.on('console', (message) => {
      if (message.type() === 'error' || message.type() === 'warning') problems.push(message.text());
    });
    const shown = async (text: string): Promise<void> => {
      // Read through Playwright's own isolated world: the page's CSP (default-src 'self') forbids evaluating strings.
      let last: string | null = null;
      for (const deadline = Date.now() + 15_000; Date.now() < deadline; await new Promise((done) => setTimeout(done, 50))) {
        last = await tab.locator('#gpu-workers').textContent();
        if (last === text) return;
      }
      assert.equal(last, text, `what the page shows (page errors: ${problems.join('; ') || 'none'})`);
    };

    const publisher = localDiscovery(namespace).publisher();
    try {
      const gpu = workerInfo({ uid: crypto.randomUUID(), address: '127.0.0.1:7001', pid: process.pid, version: '1.0.0', tags: ['gpu'] });
      const cpu = workerInfo({ uid: crypto.randomUUID(), address: '127.0.0.1:7002', pid: process.pid, version: '1.0.0', tags: ['cpu'] });
      uids.push(gpu.uid, cpu.uid);
      // A CPU worker before the page opens (the initial state: filtered out,
      // so the page still waits), the GPU worker after.
      await publisher.publish('worker-added', cpu);
      await tab.goto(`http://127.0.0.1:${address.port}/index.html`);
      await shown('(waiting for the main process)');
      await publisher.publish('worker-added', gpu);
      await shown('127.0.0.1:7001  gpu');
      await publisher.publish('worker-updated', workerInfo({ ...gpu, tags: ['gpu', 'large'] }));
      await shown('127.0.0.1:7001  gpu,large');
      await publisher.publish('worker-dropped', gpu);
      await shown('(no GPU worker)');
      assert.equal(upstream(), 1, 'one upstream subscription while the page watches');
      assert.deepEqual(problems, [], 'errors or warnings in the page');
    } finally {
      await context.close();
      await publisher.close();
    }
    const deadline = Date.now() + 10_000;
    while (upstream() !== 0 && Date.now() < deadline) await new Promise((done) => setTimeout(done, 50));
    assert.equal(upstream(), 0, 'closing the page releases the upstream subscription');
  });
});
