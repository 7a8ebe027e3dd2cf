import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  catchError,
  finalize,
  fromEvent,
  interval,
  map,
  merge,
  mergeWith,
  Observable,
  of,
  takeUntil,
  Subscription,
} from 'rxjs';
import { errorMessage } from '../../discovery/errorMessage.js';
import type { Discovery } from '../../discovery/types.js';
import { diagnosticLines } from '../diagnosticLines.js';
import { formatEventJson } from '../formatEventJson.js';
import { dashboardPage } from './dashboardPage.js';

/** A running dashboard. */
export interface Dashboard {
  /** `http://127.0.0.1:PORT/`. */
  readonly url: string;
  /** Open event streams (one per page). */
  readonly connections: number;
  /** Ends every event stream (releasing its subscription) and stops the server. */
  close(): Promise<void>;
}

/** Options of {@link startDashboard}. */
export interface DashboardOptions {
  /** TCP port on 127.0.0.1; 0 picks a free one. */
  readonly port: number;
  /** SSE comment sent this often (ms) so proxies and browsers keep the stream. Default 15 000. */
  readonly keepAliveMs?: number;
}

function sendPage(response: ServerResponse): void {
  response.writeHead(200, {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    'content-security-policy':
      "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'",
    'x-content-type-options': 'nosniff',
  });
  response.end(dashboardPage);
}

/**
 * The SSE messages of one page: every worker event (exactly the `watch --json` line: wool's default channel options
 * left out), an `event: synced` once the initial state is complete (so the page can tell "no workers" from
 * "loading"), an `event: status` whenever the backend cannot be reached or recovers (`{"message"}`, `null` once
 * fine), a keep-alive comment every `keepAliveMs`, and `event: failure` if the stream errors. One watch of the
 * discovery (`watch()`): every event as it happened, and its synced signal.
 */
function pageMessages(discovery: Discovery, keepAliveMs: number): Observable<string> {
  // The backend's state, as the terminal table's header shows it: set while
  // it cannot be reached (etcd down), cleared when it recovers.
  const status = new Observable<string>((subscriber) =>
    discovery.diagnostics.subscribe(
      diagnosticLines({
        line: () => undefined,
        status: (text) => subscriber.next(`event: status\ndata: ${JSON.stringify({ message: text ?? null })}\n\n`),
      }),
    ),
  );
  return discovery.watch().pipe(
    map((item) => (item.type === 'synced' ? 'event: synced\ndata: {}\n\n' : `data: ${formatEventJson(item)}\n\n`)),
    mergeWith(status, interval(keepAliveMs).pipe(map(() => ': keep-alive\n\n'))),
    catchError((error: unknown) => of(`event: failure\ndata: ${JSON.stringify({ message: errorMessage(error) })}\n\n`)),
  );
}

/**
 * Serves the live worker table of a discovery on 127.0.0.1: `GET /` is the
 * page, `GET /events` a Server-Sent Events stream. Each `/events`
 * connection watches the discovery on its own (cold per page: it first gets
 * every current worker) and stops watching when the page goes away.
 * Messages: `event: hello` (`{"namespace"}`), then one default message per
 * worker event (the `watch --json` line), `event: synced` once the initial
 * state is complete (empty or not), `event: status` (`{"message"}`: why the
 * backend cannot be reached, e.g. etcd down; `null` once it recovered), and `event: failure` (`{"message"}`) if
 * the stream errors (the stream then ends). Requests whose `Host` is not
 * this loopback address are refused (DNS rebinding).
 *
 * @example
 * const dashboard = await startDashboard(localDiscovery('pool'), { port: 0 });
 * console.log(dashboard.url);
 * // later
 * await dashboard.close();
 *
 * @param discovery The discovery to show.
 * @param options The port.
 * @returns The running dashboard.
 */
export async function startDashboard(discovery: Discovery, options: DashboardOptions): Promise<Dashboard> {
  /** One subscription per open page. */
  const streams = new Set<Subscription>();
  let port = options.port;
  const allowedHosts = (): Set<string> => new Set([`127.0.0.1:${port}`, `localhost:${port}`]);

  const sendEvents = (request: IncomingMessage, response: ServerResponse): void => {
    response.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    response.write(`retry: 1000\nevent: hello\ndata: ${JSON.stringify({ namespace: discovery.namespace })}\n\n`);
    const gone = merge(fromEvent(request, 'close'), fromEvent(response, 'error'));
    // Registered before subscribing: a stream that fails synchronously ends
    // (finalize) inside subscribe().
    const stream = new Subscription();
    streams.add(stream);
    stream.add(
      pageMessages(discovery, options.keepAliveMs ?? 15_000)
        .pipe(
          takeUntil(gone),
          finalize(() => {
            streams.delete(stream);
            response.end();
          }),
        )
        .subscribe((message) => response.write(message)),
    );
  };

  const server = createServer((request, response) => {
    if (!allowedHosts().has(request.headers.host ?? '')) {
      response.writeHead(421, { 'content-type': 'text/plain' }).end('misdirected request\n');
      return;
    }
    const path = new URL(request.url ?? '/', 'http://127.0.0.1').pathname;
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.writeHead(405, { allow: 'GET, HEAD' }).end();
    } else if (path === '/') {
      sendPage(response);
    } else if (path === '/events') {
      sendEvents(request, response);
    } else {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  port = (server.address() as AddressInfo).port;

  return {
    url: `http://127.0.0.1:${port}/`,
    get connections() {
      return streams.size;
    },
    close: async () => {
      for (const stream of [...streams]) stream.unsubscribe();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
