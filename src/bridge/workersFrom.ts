import type { Observable } from 'rxjs';
import type { DiscoveryEvent } from '../events/types.js';
import { describeValue } from '../model/describeValue.js';
import { assertBridgePort } from './assertBridgePort.js';
import { bridgeRequests } from './bridgeRequests.js';
import { itemFromMessage } from './itemFromMessage.js';
import type { BridgeOptions, BridgePort } from './types.js';

/**
 * The worker events that {@link exposeWorkers} serves on the other end of a
 * MessagePort-like channel, as a cold Observable — the events-only form of
 * {@link discoveryFrom}, which also says when the initial state is complete
 * (`watch()`, `snapshots()`): prefer it for a view that must tell "loading"
 * from "no workers". Each subscription posts a `subscribe` request with a
 * fresh id (so the owner subscribes its source once for it), receives that
 * subscription's events — rebuilt as validated, frozen `DiscoveryEvent`s —
 * then its error (an `Error` with the original `name`, `message` and
 * `code`) or completion; unsubscribing posts a `release`, which
 * unsubscribes the owner's upstream. Any number of subscriptions share one
 * port independently. If the port closes, or the owner stops exposing,
 * live subscriptions error with `BridgeClosedError` (code
 * `WOOLRX_BRIDGE_CLOSED`). Renderer-safe: no Node built-in.
 *
 * ```text
 * owner's events:    --a--b--c--#
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
  return bridgeRequests(port, channel).request<DiscoveryEvent>('events', (message) => {
    const item = itemFromMessage(message);
    return item?.type === 'synced' ? undefined : item;
  });
}
