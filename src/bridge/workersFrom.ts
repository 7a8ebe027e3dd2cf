import { Observable } from 'rxjs';
import { discoveryEvent } from '../events/discoveryEvent.js';
import type { DiscoveryEvent } from '../events/types.js';
import { describeValue } from '../model/describeValue.js';
import { workerInfo } from '../model/workerInfo.js';
import { assertBridgePort } from './assertBridgePort.js';
import { BridgeClosedError } from './BridgeClosedError.js';
import { listenToPort } from './listenToPort.js';
import type { BridgeErrorPayload, BridgeMessage, BridgeOptions, BridgePort } from './types.js';

/**
 * The error a subscription on the receiving side gets: an `Error` with the
 * original `name`, `message` and `code` (the class itself cannot cross a
 * port; match on `code` or `name`). @internal
 *
 * @param payload What crossed the port.
 * @returns The error.
 */
function errorFromPayload(payload: BridgeErrorPayload): Error {
  const error = new Error(typeof payload.message === 'string' ? payload.message : 'unknown error');
  error.name = typeof payload.name === 'string' ? payload.name : 'Error';
  if (payload.code !== undefined) Object.assign(error, { code: payload.code });
  return error;
}

let instances = 0;

function randomId(): string {
  const random = (globalThis as { crypto?: { randomUUID?: () => string } }).crypto?.randomUUID?.();
  return random ?? `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;
}

/**
 * The worker events that {@link exposeWorkers} serves on the other end of a
 * MessagePort-like channel, as a cold Observable: each subscription posts
 * a `subscribe` request with a fresh id (so the owner subscribes its
 * source once for it), receives that subscription's events — rebuilt as
 * validated, frozen `DiscoveryEvent`s — then its error (an `Error` with the
 * original `name`, `message` and `code`) or completion; unsubscribing posts
 * a `release`, which unsubscribes the owner's upstream. Any number of
 * subscriptions share one port independently. If the port closes, or the
 * owner stops exposing, live subscriptions error with `BridgeClosedError`
 * (code `WOOLRX_BRIDGE_CLOSED`). Renderer-safe: no Node built-in.
 *
 * ```text
 * owner's events$:   --a--b--c--#
 * workersFrom(port): --a--b--c--#   (per subscription; # keeps name, message, code)
 * ```
 *
 * @example
 * // Electron renderer (preload hands over the port)
 * const workers$ = workersFrom(port).pipe(filterWorkers((w) => w.tags.includes('gpu')));
 * const subscription = workers$.subscribe(({ type, worker }) => render(type, worker));
 *
 * @param port This side's end of the channel.
 * @param options `channel`: the bridge's name on the port (default `'woolrx'`).
 * @returns The cold stream of worker events.
 * @throws {TypeError} Naming a bad port or channel.
 */
export function workersFrom(port: BridgePort, options: BridgeOptions = {}): Observable<DiscoveryEvent> {
  assertBridgePort(port, 'workersFrom');
  const channel = options.channel ?? 'woolrx';
  if (typeof channel !== 'string' || channel === '') {
    throw new TypeError(`Invalid workersFrom channel: ${describeValue(channel)} (expected a non-empty string)`);
  }
  instances += 1;
  const prefix = `${randomId()}-${instances}`;
  let counter = 0;
  // One listener on the port for all of this stream's live subscriptions, attached while there are any.
  const live = new Map<string, { message: (message: BridgeMessage) => void; close: () => void }>();
  let stopListening: (() => void) | undefined;
  let portClosed = false;
  const attach = (): void => {
    stopListening ??= listenToPort(
      port,
      channel,
      (message) => live.get(message.id)?.message(message),
      () => {
        portClosed = true;
        for (const handlers of [...live.values()]) handlers.close();
      },
    );
  };
  const detach = (id: string): void => {
    live.delete(id);
    if (live.size === 0) {
      stopListening?.();
      stopListening = undefined;
    }
  };

  return new Observable<DiscoveryEvent>((subscriber) => {
    if (portClosed) {
      subscriber.error(new BridgeClosedError('the port closed'));
      return undefined;
    }
    counter += 1;
    const id = `${prefix}-${counter}`;
    let active = true;
    const end = (): void => {
      active = false;
      detach(id);
    };
    const onMessage = (message: BridgeMessage): void => {
      if (!active) return;
      switch (message.kind) {
        case 'next': {
          let event: DiscoveryEvent;
          try {
            event = discoveryEvent(message.type, workerInfo(message.worker));
          } catch (error) {
            // A malformed event from the other side: fail this subscription, release upstream.
            end();
            port.postMessage({ woolrxBridge: channel, kind: 'release', id } satisfies BridgeMessage);
            subscriber.error(error);
            return;
          }
          subscriber.next(event);
          return;
        }
        case 'error':
          end();
          subscriber.error(errorFromPayload(message.error));
          return;
        case 'complete':
          end();
          subscriber.complete();
          return;
        default:
          return;
      }
    };
    const onClose = (): void => {
      if (!active) return;
      end();
      subscriber.error(new BridgeClosedError('the port closed'));
    };
    live.set(id, { message: onMessage, close: onClose });
    attach();
    port.postMessage({ woolrxBridge: channel, kind: 'subscribe', id } satisfies BridgeMessage);
    return () => {
      if (!active) return;
      end();
      try {
        port.postMessage({ woolrxBridge: channel, kind: 'release', id } satisfies BridgeMessage);
      } catch {
        // The port is gone: nothing to release.
      }
    };
  });
}
