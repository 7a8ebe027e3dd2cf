import { discoveryReader } from '../discovery/discoveryReader.js';
import type { DiscoveryDiagnostic, DiscoveryReader } from '../discovery/types.js';
import type { DiscoveryItem } from '../events/types.js';
import { describeValue } from '../model/describeValue.js';
import { assertBridgePort } from './assertBridgePort.js';
import { bridgeRequests } from './bridgeRequests.js';
import { diagnosticFromMessage } from './diagnosticFromMessage.js';
import { itemFromMessage } from './itemFromMessage.js';
import type { BridgeOptions, BridgePort } from './types.js';

/**
 * The discovery that {@link exposeWorkers} serves on the other end of a
 * MessagePort-like channel, as a read-only {@link DiscoveryReader}: the same
 * `events(filter?)`, `watch(filter?)` and `snapshots(filter?)` as a backend
 * in the owning process, so a renderer can tell "loading" from "no
 * workers": `snapshots()` emits nothing until the owner's initial state is
 * complete, then that whole state at once (an empty map when the pool is
 * empty), then one snapshot per burst of changes; `watch()` carries the
 * owner's `{ type: 'synced' }`. There is no `publisher()`: a renderer has
 * no backend to write to.
 *
 * Each subscription is one `subscribe` request for the owner's `watch()`
 * (a backend watch of its own, released on unsubscribe). Filters run on
 * this side (a function cannot cross a port), with `filterWorkers`'
 * in/out transitions; `synced` passes every filter. Every event is rebuilt
 * as a validated, frozen `DiscoveryEvent`: a malformed one errors its
 * subscription with the `TypeError` naming the bad value, and releases it.
 * Errors keep their `name`, `message` and `code`; a closed port or an
 * owner that stops exposing errors live subscriptions with
 * `BridgeClosedError` (code `WOOLRX_BRIDGE_CLOSED`). `diagnostics`
 * subscribes to the owner's `discovery.diagnostics` (each diagnostic's
 * `error` arrives as an `Error` with its `name`, `message` and `code`);
 * it stays silent when the owner exposes a plain Observable. The owner
 * must expose a `Discovery` (or a `watch()` stream): a stream of events
 * alone has no `synced`, so `snapshots()` would wait for it.
 * Renderer-safe: no Node built-in.
 *
 * ```text
 * owner's watch():            --a--b--s--c--|         (s = synced, a b c events)
 * discoveryFrom(port)
 *   .snapshots():             --------S--C--|         (S = {a, b} at once, C = S with c)
 * ```
 *
 * @example
 * // Electron renderer (the preload hands over the port)
 * render('loading…');
 * discoveryFrom(port)
 *   .snapshots((w) => w.tags.includes('gpu'))
 *   .subscribe((gpus) => render(gpus.size === 0 ? 'no GPU worker' : [...gpus.values()]));
 *
 * @param port This side's end of the channel.
 * @param options `channel`: the bridge's name on the port (default `'woolrx'`).
 * @returns The read-only discovery.
 * @throws {TypeError} Naming a bad port or channel.
 */
export function discoveryFrom(port: BridgePort, options: BridgeOptions = {}): DiscoveryReader {
  assertBridgePort(port, 'discoveryFrom');
  const channel = options.channel ?? 'woolrx';
  if (typeof channel !== 'string' || channel === '') {
    throw new TypeError(`Invalid discoveryFrom channel: ${describeValue(channel)} (expected a non-empty string)`);
  }
  const requests = bridgeRequests(port, channel);
  return discoveryReader(
    requests.request<DiscoveryItem>('watch', itemFromMessage),
    requests.request<DiscoveryDiagnostic>('diagnostics', diagnosticFromMessage),
  );
}
