import { Observable } from 'rxjs';
import { BridgeClosedError } from './BridgeClosedError.js';
import { errorFromPayload } from './errorFromPayload.js';
import { listenToPort } from './listenToPort.js';
import type { BridgeMessage, BridgePort, BridgeStream } from './types.js';

/** What one subscription makes of the owner's `next`, `synced` and `diagnostic` messages. */
export type BridgeDecoder<T> = (message: BridgeMessage) => T | undefined;

/** The receiving side of one channel of a port: cold streams, one `subscribe` request each. @internal */
export interface BridgeRequests {
  /**
   * A cold stream of one kind: each subscription posts a `subscribe`
   * request with a fresh id and ends with the owner's `error` or
   * `complete`, the port's closing, or a `release` on unsubscribe.
   * @param stream What to ask the owner for.
   * @param decode The value to emit for a message (`undefined`: none); what
   * it throws errors the subscription, which is then released.
   */
  request<T>(stream: BridgeStream, decode: BridgeDecoder<T>): Observable<T>;
}

let instances = 0;

function randomId(): string {
  const random = (globalThis as { crypto?: { randomUUID?: () => string } }).crypto?.randomUUID?.();
  return random ?? `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;
}

/**
 * The receiving side of a bridge channel, shared by {@link workersFrom}
 * and {@link discoveryFrom}: the subscription ids (a random prefix and a
 * counter), one listener on the port while any subscription is live, and
 * the end of every live subscription when the port closes. @internal
 *
 * @example
 * const raw$ = bridgeRequests(port, 'woolrx').request('watch', decodeItem);
 *
 * @param port This side's end of the channel (checked by the caller).
 * @param channel The channel name (checked by the caller).
 * @returns The request factory.
 */
export function bridgeRequests(port: BridgePort, channel: string): BridgeRequests {
  instances += 1;
  const prefix = `${randomId()}-${instances}`;
  let counter = 0;
  // One listener on the port for all live subscriptions, attached while there are any.
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

  const request = <T>(stream: BridgeStream, decode: BridgeDecoder<T>): Observable<T> =>
    new Observable<T>((subscriber) => {
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
      const release = (): void => {
        try {
          port.postMessage({ woolrxBridge: channel, kind: 'release', id } satisfies BridgeMessage);
        } catch {
          // The port is gone: nothing to release.
        }
      };
      const onMessage = (message: BridgeMessage): void => {
        if (!active) return;
        switch (message.kind) {
          case 'error':
            end();
            subscriber.error(errorFromPayload(message.error));
            return;
          case 'complete':
            end();
            subscriber.complete();
            return;
          case 'subscribe':
          case 'release':
            return;
          default: {
            let value: T | undefined;
            try {
              value = decode(message);
            } catch (error) {
              // A malformed message from the other side: fail this subscription, release upstream.
              end();
              release();
              subscriber.error(error);
              return;
            }
            if (value !== undefined) subscriber.next(value);
          }
        }
      };
      const onClose = (): void => {
        if (!active) return;
        end();
        subscriber.error(new BridgeClosedError('the port closed'));
      };
      live.set(id, { message: onMessage, close: onClose });
      attach();
      // A plain events request carries no `stream`, as before streams existed.
      port.postMessage({
        woolrxBridge: channel,
        kind: 'subscribe',
        id,
        ...(stream === 'events' ? {} : { stream }),
      } satisfies BridgeMessage);
      return () => {
        if (!active) return;
        end();
        release();
      };
    });
  return { request };
}
