// The Electron example (docs/examples/electron), built from the packed
// tarball as a user builds it, runs in Debian's Chromium: its preload and
// renderer are bundled for the browser from the installed package (only
// Electron's `ipcRenderer` is a stand-in), its main process is bundled for
// Node. The page reads the discovery of this Node process over the bridge:
// `exposeWorkers(localDiscovery(ns), port)` here, a WebSocket in between
// (the test's stand-in for Electron's IPC), a real MessagePort in the page,
// `discoveryFrom(port).snapshots(gpu)` in the renderer. The test publishes
// through the package's woolrx/local and asserts everything the page shows,
// in order: "loading", then the complete initial state at once (empty:
// "no GPU worker"; or both GPU workers in one go, never one then both),
// then each add, update and drop; and that closing the pages releases their
// upstream subscriptions.
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { chromium, type Browser, type Page } from 'playwright-core';
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
const emptyNamespace = uniqueNamespace('browser-empty');
const uids: string[] = [];

/** Electron's preload API, as far as the example's preload uses it; the relay below plays the main process. */
const ELECTRON_STANDIN = `
const listeners = new Map();
export const ipcRenderer = { on(channel, listener) { listeners.set(channel, listener); } };
globalThis.electronStandIn = { send(channel, event) { listeners.get(channel)?.(event); } };
`;

/** Reports every text #gpu-workers shows, from its first, to the test's `woolrxShown` binding. */
const SHOWN_OBSERVER = `
let last;
new MutationObserver(() => {
  const text = document.getElementById('gpu-workers')?.textContent;
  if (!text || text === last) return;
  last = text;
  globalThis.woolrxShown(text);
}).observe(document, { childList: true, characterData: true, subtree: true });
`;

/** The main process's half, in the page: a MessageChannel whose port1 is relayed over a WebSocket to Node. */
// (The page's query string picks the namespace the Node side exposes.)
const RELAY = `
const socket = new WebSocket('ws://' + location.host + '/bridge' + location.search);
const { port1, port2 } = new MessageChannel();
socket.addEventListener('message', (event) => port1.postMessage(JSON.parse(event.data)));
port1.onmessage = (event) => socket.send(JSON.stringify(event.data));
socket.addEventListener('open', () => globalThis.electronStandIn.send('woolrx:port', { ports: [port2] }));
`;

async function bundle(
  entry: string,
  outfile: string,
  options: {
    platform: 'browser' | 'node';
    format: 'esm' | 'iife' | 'cjs';
    alias?: Record<string, string>;
    external?: string[];
  },
): Promise<string[]> {
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
    for (const file of readdirSync(join(REPO, 'docs/examples/electron')))
      copyFileSync(join(REPO, 'docs/examples/electron', file), join(app, 'src', file));
    writeFileSync(join(app, 'electron-standin.mjs'), ELECTRON_STANDIN);
    writeFileSync(join(app, 'relay.mjs'), RELAY);
    browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      headless: true,
      args: [
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
    await browser?.close();
    await new Promise<void>((done) => (server === undefined ? done() : server.close(() => done())));
    const left = [...sweep(namespace, uids), ...sweep(emptyNamespace, [])];
    ws?.dispose();
    assert.deepEqual(left, [], 'shared-memory objects left behind');
  });

  it('bundles: renderer and preload for the browser, main for Node, no warning, nothing of Node in the page', async (t) => {
    const page = join(app, 'page');
    assert.deepEqual(
      await bundle('src/renderer.ts', join(page, 'renderer.js'), { platform: 'browser', format: 'esm' }),
      [],
    );
    assert.deepEqual(
      await bundle('src/preload.ts', join(page, 'preload.js'), {
        platform: 'browser',
        format: 'iife',
        alias: { electron: './electron-standin.mjs' },
      }),
      [],
    );
    assert.deepEqual(await bundle('relay.mjs', join(page, 'relay.js'), { platform: 'browser', format: 'esm' }), []);
    // As the guide says: a sandboxed preload is one CommonJS file; the main process keeps packages external.
    assert.deepEqual(
      await bundle('src/preload.ts', join(app, 'out/preload.cjs'), {
        platform: 'node',
        format: 'cjs',
        external: ['electron'],
      }),
      [],
    );
    assert.deepEqual(
      await bundle('src/main.ts', join(app, 'out/main.js'), {
        platform: 'node',
        format: 'esm',
        external: ['electron', 'woolrx', 'rxjs'],
      }),
      [],
    );
    t.diagnostic(
      `renderer.js (rxjs included, minified): ${(readFileSync(join(page, 'renderer.js')).length / 1000).toFixed(1)} KB`,
    );
    // The page loads the preload first (Electron runs it before the page), the relay after the renderer.
    const html = readFileSync(join(app, 'src/index.html'), 'utf8')
      .replace('</head>', '  <script src="./preload.js"></script>\n</head>')
      .replace('</body>', '  <script type="module" src="./relay.js"></script>\n</body>');
    assert.notEqual(html, readFileSync(join(app, 'src/index.html'), 'utf8'));
    writeFileSync(join(page, 'index.html'), html);
  });

  it('shows "loading", then the complete initial state at once (empty, or both GPU workers), then each change; releases the upstreams when the pages close', async () => {
    assert.ok(browser !== undefined);
    const load = <T>(entry: string): Promise<T> =>
      import(pathToFileURL(join(app, 'node_modules/woolrx/dist', entry)).href) as Promise<T>;
    const { workerInfo } = await load<typeof Core>('index.js');
    const { exposeWorkers } = await load<typeof Bridge>('bridge/index.js');
    const { localDiscovery } = await load<typeof Local>('local/index.js');
    const { finalize } = (await import(
      pathToFileURL(join(app, 'node_modules/rxjs/dist/esm5/index.js')).href
    )) as typeof Rx;

    // The discovery as the main process exposes it, its watch() subscriptions counted.
    const open = { upstream: 0 };
    const upstream = (): number => open.upstream;
    const exposed = (ns: string): Core.Discovery => {
      const discovery = localDiscovery(ns, { pollInterval: 100 });
      return {
        ...discovery,
        watch: (filter?: Core.WorkerPredicate): Observable<Core.DiscoveryItem> => {
          const items$ = discovery.watch(filter);
          return new (items$.constructor as typeof Observable<Core.DiscoveryItem>)((subscriber) => {
            open.upstream += 1;
            return items$.pipe(finalize(() => (open.upstream -= 1))).subscribe(subscriber);
          });
        },
      };
    };

    const page = join(app, 'page');
    const types: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript' };
    server = createServer((request, response) => {
      const name = (request.url ?? '/').split('?')[0]?.slice(1) || 'index.html';
      if (name === 'favicon.ico') return void response.writeHead(204).end();
      if (!/^[\w.-]+$/.test(name)) return void response.writeHead(404).end();
      try {
        const body = readFileSync(join(page, name));
        response
          .writeHead(200, { 'content-type': types[name.slice(name.lastIndexOf('.'))] ?? 'application/octet-stream' })
          .end(body);
      } catch {
        response.writeHead(404).end();
      }
    });
    const sockets = new WebSocketServer({ server, path: '/bridge' });
    sockets.on('connection', (socket, request) => {
      const listeners = new Map<string, Set<(value: unknown) => void>>();
      const emit = (type: string, value?: unknown): void => listeners.get(type)?.forEach((listener) => listener(value));
      socket.on('message', (data: Buffer) => emit('message', JSON.parse(data.toString('utf8'))));
      const port = {
        postMessage: (message: unknown) => socket.send(JSON.stringify(message)),
        on: (type: string, listener: (value: unknown) => void) =>
          void (listeners.get(type) ?? listeners.set(type, new Set()).get(type))?.add(listener),
        off: (type: string, listener: (value: unknown) => void) => void listeners.get(type)?.delete(listener),
      };
      const exposure = exposeWorkers(
        exposed(request.url?.endsWith('?empty') === true ? emptyNamespace : namespace),
        port,
      );
      socket.on('close', () => {
        exposure.unsubscribe();
        emit('close');
      });
    });
    await new Promise<void>((done) => server?.listen(0, '127.0.0.1', done));
    const address = server.address();
    assert.ok(address !== null && typeof address === 'object');

    const context = await browser.newContext();
    const problems: string[] = [];
    /**
     * Opens the page; returns everything #gpu-workers shows, in order (a MutationObserver injected by the DevTools
     * protocol, which the page's CSP does not govern).
     */
    const openPage = async (query = ''): Promise<{ tab: Page; log: string[] }> => {
      const tab = await context.newPage();
      const log: string[] = [];
      tab.on('pageerror', (error) => problems.push(error.message));
      tab.on('console', (message) => {
        if (message.type() === 'error' || message.type() === 'warning') problems.push(message.text());
      });
      await tab.exposeBinding('woolrxShown', (_source, text: string) => void log.push(text));
      await tab.addInitScript({ content: SHOWN_OBSERVER });
      await tab.goto(`http://127.0.0.1:${address.port}/index.html${query}`);
      return { tab, log };
    };
    /** Waits until what the page showed, from entry `from` on, is `expected`. */
    const showed = async (log: string[], expected: string[], from = 0): Promise<void> => {
      for (
        const deadline = Date.now() + 15_000;
        Date.now() < deadline;
        await new Promise((done) => setTimeout(done, 50))
      ) {
        if (log.length - from >= expected.length) break;
      }
      assert.deepEqual(
        log.slice(from),
        expected,
        `what the page showed (page errors: ${problems.join('; ') || 'none'})`,
      );
    };

    const publisher = localDiscovery(namespace).publisher();
    try {
      const gpu = workerInfo({
        uid: crypto.randomUUID(),
        address: '127.0.0.1:7001',
        pid: process.pid,
        version: '1.0.0',
        tags: ['gpu'],
      });
      const gpu2 = workerInfo({
        uid: crypto.randomUUID(),
        address: '127.0.0.1:7003',
        pid: process.pid,
        version: '1.0.0',
        tags: ['gpu'],
      });
      const cpu = workerInfo({
        uid: crypto.randomUUID(),
        address: '127.0.0.1:7002',
        pid: process.pid,
        version: '1.0.0',
        tags: ['cpu'],
      });
      uids.push(gpu.uid, gpu2.uid, cpu.uid);

      // An empty namespace: "loading", then an empty first snapshot.
      const empty = await openPage('?empty');
      await showed(empty.log, ['(waiting for the main process)', '(loading…)', '(no GPU worker)']);
      await empty.tab.close();

      // A CPU worker before the page opens: the initial state has no GPU worker.
      await publisher.publish('worker-added', cpu);
      const first = await openPage();
      await showed(first.log, ['(waiting for the main process)', '(loading…)', '(no GPU worker)']);
      await publisher.publish('worker-added', gpu);
      await showed(first.log, ['127.0.0.1:7001  gpu'], 3);
      await publisher.publish('worker-updated', workerInfo({ ...gpu, tags: ['gpu', 'large'] }));
      await showed(first.log, ['127.0.0.1:7001  gpu,large'], 4);
      await publisher.publish('worker-added', gpu2);
      await showed(first.log, ['127.0.0.1:7001  gpu,large\n127.0.0.1:7003  gpu'], 5);

      // Two GPU workers present when a page opens: its first list holds both.
      const second = await openPage();
      await showed(second.log, [
        '(waiting for the main process)',
        '(loading…)',
        '127.0.0.1:7001  gpu,large\n127.0.0.1:7003  gpu',
      ]);
      assert.equal(upstream(), 2, 'one upstream subscription per watching page');

      await publisher.publish('worker-dropped', gpu);
      await showed(second.log, ['127.0.0.1:7003  gpu'], 3);
      await publisher.publish('worker-dropped', gpu2);
      await showed(second.log, ['(no GPU worker)'], 4);
      await showed(first.log, ['127.0.0.1:7003  gpu', '(no GPU worker)'], 6);
      assert.deepEqual(problems, [], 'errors or warnings in the page');
    } finally {
      await context.close();
      await publisher.close();
    }
    const deadline = Date.now() + 10_000;
    while (upstream() !== 0 && Date.now() < deadline) await new Promise((done) => setTimeout(done, 50));
    assert.equal(upstream(), 0, 'closing the pages releases their upstream subscriptions');
  });
});
