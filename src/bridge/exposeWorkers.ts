import { Subscription } from 'rxjs';
import type { Observable } from 'rxjs';
import type { DiscoveryReader } from '../discovery/types.js';
import { isDiscoveryEventType } from '../events/isDiscoveryEventType.js';
import { isDropReason } from '../events/isDropReason.js';
import type { DiscoveryItem } from '../events/types.js';
import { describeValue } from '../model/describeValue.js';
import { assertBridgePort } from './assertBridgePort.js';
import { BridgeClosedError } from './BridgeClosedError.js';
import { errorPayload } from './errorPayload.js';
import { listenToPort } from './listenToPort.js';
import type { BridgeDiagnosticPayload, BridgeMessage, BridgeOptions, BridgePort, BridgeStream } from './types.js';
import { workerPayload } from './workerPayload.js';

/** What {@link exposeWorkers} serves. */
type Source = { readonly reader: DiscoveryReader } | { readonly items: Observable<unknown> };

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && (typeof value === 'object' || typeof value === 'function');
}

function sourceOf(value: unknown): Source {
  if (isObject(value) && typeof value['watch'] === 'function' && typeof value['events'] === 'function') {
    return { reader: value as unknown as DiscoveryReader };
  }
  if (isObject(value) && typeof value['subscribe'] === 'function')
    return { items: value as unknown as Observable<unknown> };
  throw new TypeError(
    `Invalid exposeWorkers source: ${describeValue(value)} ` +
      '(expected a Discovery, or an Observable of worker events such as discovery.watch())',
  );
}

/** The upstream of one request; `undefined` when the source has none of that kind (diagnostics of a plain stream). */
function upstreamOf(source: Source, stream: BridgeStream): Observable<unknown> | undefined {
  if ('items' in source) return stream === 'diagnostics' ? undefined : source.items;
  switch (stream) {
    case 'events':
      return source.reader.events();
    case 'watch':
      return source.reader.watch();
    case 'diagnostics':
      return source.reader.diagnostics;
  }
}

/**
 * The message for one item of a watch or events upstream, `undefined` for
 * nothing (a `synced` asked for by an events request).
 * @throws {TypeError} Naming an item that is not a worker event or `synced`.
 */
function itemMessage(channel: string, id: string, stream: BridgeStream, item: unknown): BridgeMessage | undefined {
  const type = isObject(item) ? item['type'] : undefined;
  if (type === 'synced') return stream === 'watch' ? { woolrxBridge: channel, kind: 'synced', id } : undefined;
  if (!isObject(item) || !isDiscoveryEventType(type)) {
    throw new TypeError(
      `exposeWorkers: the source emitted ${describeValue(item)}, not a worker event or { type: 'synced' }`,
    );
  }
  let worker;
  try {
    worker = workerPayload(item['worker'] as never);
  } catch (error) {
    throw new TypeError(
      `exposeWorkers: the source emitted a ${type} event with an invalid worker: ` +
        (error instanceof Error ? error.message : String(error)),
      { cause: error },
    );
  }
  const reason = type === 'worker-dropped' && isDropReason(item['reason']) ? item['reason'] : undefined;
  return reason === undefined
    ? { woolrxBridge: channel, kind: 'next', id, type, worker }
    : { woolrxBridge: channel, kind: 'next', id, type, worker, reason };
}

const DIAGNOSTIC_KINDS: ReadonlySet<unknown> = new Set([
  'malformed-record',
  'unauthenticated-record',
  'warning',
  'recovered',
]);

/**
 * The message for one diagnostic.
 * @throws {TypeError} Naming a value that is not a `DiscoveryDiagnostic`.
 */
function diagnosticMessage(channel: string, id: string, value: unknown): BridgeMessage {
  if (
    !isObject(value) ||
    !DIAGNOSTIC_KINDS.has(value['kind']) ||
    typeof value['namespace'] !== 'string' ||
    typeof value['message'] !== 'string'
  ) {
    throw new TypeError(`exposeWorkers: the diagnostics emitted ${describeValue(value)}, not a DiscoveryDiagnostic`);
  }
  const { kind, namespace, message, uid, error } = value as {
    kind: string;
    namespace: string;
    message: string;
    uid?: unknown;
    error?: unknown;
  };
  const diagnostic: BridgeDiagnosticPayload = {
    kind,
    namespace,
    message,
    ...(typeof uid === 'string' ? { uid } : {}),
    ...(error === undefined ? {} : { error: errorPayload(error) }),
  };
  return { woolrxBridge: channel, kind: 'diagnostic', id, diagnostic };
}

const STREAMS: ReadonlySet<unknown> = new Set<BridgeStream>(['events', 'watch', 'diagnostics']);

/**
 * Serves a discovery's streams over a MessagePort-like channel to
 * {@link discoveryFrom} (or {@link workersFrom}) on the other side: an
 * Electron renderer, a worker thread, an iframe. Every `subscribe` request
 * from the other side gets its own subscription upstream (so a cold source
 * stays cold per subscriber): `discovery.watch()` for a `discoveryFrom`
 * stream (its events, `synced` and completion or error), `discovery.events()`
 * for a `workersFrom` stream, `discovery.diagnostics` for a
 * `discoveryFrom(port).diagnostics` subscription. Everything crosses as
 * plain data: events (each worker checked), `synced`, errors as
 * `{ name, message, code }`, completion; a `release` unsubscribes the
 * upstream. When the port closes, every upstream subscription is released.
 * Unsubscribing the returned subscription stops serving: upstreams are
 * released and the other side's subscriptions error with
 * `BridgeClosedError`.
 *
 * The source may also be an Observable: `discovery.watch()` (served to
 * every request as it is, `synced` included) or, as before, a stream of
 * worker events (it has no `synced`: a `discoveryFrom` receiver's
 * `snapshots()` then waits for one; pass the discovery instead). A
 * source's item that is neither a worker event with a valid worker nor
 * `{ type: 'synced' }` never throws in the owning process: that
 * subscription errors on the other side with a `TypeError` naming the item,
 * and its upstream is released.
 *
 * ```text
 * discovery.watch() (per request):  --a--b--s--c--|     (s = synced)
 * over the port:                    --a--b--s--c--|     (to the requester only)
 * ```
 *
 * @example
 * // Electron main process
 * const { port1, port2 } = new MessageChannelMain();
 * const exposure = exposeWorkers(localDiscovery('pool'), port1);
 * win.webContents.postMessage('woolrx-port', null, [port2]);
 * win.on('closed', () => exposure.unsubscribe());
 *
 * @param source What to serve: a `Discovery` (or any `DiscoveryReader`,
 * such as another bridge's `discoveryFrom`), or an Observable of
 * `discovery.watch()` items or of worker events (subscribed once per request).
 * @param port The owning side's end of the channel.
 * @param options `channel`: the bridge's name on the port (default `'woolrx'`).
 * @returns A subscription that stops serving.
 * @throws {TypeError} Naming a bad source, port or channel.
 */
export function exposeWorkers(
  source: DiscoveryReader | Observable<DiscoveryItem>,
  port: BridgePort,
  options: BridgeOptions = {},
): Subscription {
  const served = sourceOf(source);
  assertBridgePort(port, 'exposeWorkers');
  const channel = options.channel ?? 'woolrx';
  if (typeof channel !== 'string' || channel === '') {
    throw new TypeError(`Invalid exposeWorkers channel: ${describeValue(channel)} (expected a non-empty string)`);
  }
  const upstreams = new Map<string, Subscription>();
  const post = (message: BridgeMessage): void => {
    try {
      port.postMessage(message);
    } catch {
      // A port closed under us: its close event (if any) releases everything.
    }
  };

  const onMessage = (message: BridgeMessage): void => {
    if (message.kind === 'release') {
      upstreams.get(message.id)?.unsubscribe();
      upstreams.delete(message.id);
      return;
    }
    if (message.kind !== 'subscribe' || typeof message.id !== 'string' || upstreams.has(message.id)) return;
    const { id } = message;
    const stream = message.stream ?? 'events';
    const upstream = new Subscription();
    upstreams.set(id, upstream);
    const live = (): boolean => upstreams.get(id) === upstream;
    const fail = (error: unknown): void => {
      if (!live()) return;
      upstreams.delete(id);
      post({ woolrxBridge: channel, kind: 'error', id, error: errorPayload(error) });
      upstream.unsubscribe();
    };
    try {
      if (!STREAMS.has(stream)) {
        throw new TypeError(
          `exposeWorkers: unknown stream ${describeValue(stream)} requested (expected events, watch or diagnostics)`,
        );
      }
      const items$ = upstreamOf(served, stream);
      // A source with no diagnostics serves none: the request stays open until released.
      if (items$ === undefined) return;
      upstream.add(
        items$.subscribe({
          next: (item: unknown) => {
            if (!live()) return;
            let reply: BridgeMessage | undefined;
            try {
              reply =
                stream === 'diagnostics'
                  ? diagnosticMessage(channel, id, item)
                  : itemMessage(channel, id, stream, item);
            } catch (error) {
              fail(error);
              return;
            }
            if (reply !== undefined) post(reply);
          },
          error: fail,
          complete: () => {
            if (!live()) return;
            upstreams.delete(id);
            post({ woolrxBridge: channel, kind: 'complete', id });
            upstream.unsubscribe();
          },
        }),
      );
    } catch (error) {
      // The source's watch() threw, or what it returned cannot be subscribed.
      fail(error);
    }
    if (!live()) upstream.unsubscribe();
  };

  const releaseAll = (): void => {
    const all = [...upstreams.values()];
    upstreams.clear();
    for (const upstream of all) upstream.unsubscribe();
  };
  const stopListening = listenToPort(port, channel, onMessage, releaseAll);

  return new Subscription(() => {
    stopListening();
    const ids = [...upstreams.keys()];
    releaseAll();
    const error = errorPayload(new BridgeClosedError('the owning side stopped exposing its workers'));
    for (const id of ids) post({ woolrxBridge: channel, kind: 'error', id, error });
  });
}
