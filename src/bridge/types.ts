import type { DiscoveryEventType } from '../events/types.js';

/**
 * Anything that carries structured-clone messages both ways: a
 * worker_threads `MessagePort` or `Worker`, a DOM `MessagePort`, an
 * Electron `MessagePortMain`, or a small adapter around `window.postMessage`
 * or a WebSocket. It needs `postMessage` and one way to listen: `on`
 * (EventEmitter style; the listener gets the message or an event with
 * `data`), `addEventListener` (the listener gets an event with `data`), or
 * an `onmessage` property. `start()` is called when present (DOM and
 * Electron ports queue messages until started). A `'close'` event, where
 * the port has one, ends the bridge.
 */
export interface BridgePort {
  postMessage(message: unknown): void;
  on?(type: string, listener: PortListener): unknown;
  off?(type: string, listener: PortListener): unknown;
  removeListener?(type: string, listener: PortListener): unknown;
  addEventListener?(type: string, listener: PortListener): unknown;
  removeEventListener?(type: string, listener: PortListener): unknown;
  onmessage?: PortListener | null | undefined;
  start?(): void;
}

/**
 * A listener as ports declare it: every library types its argument its own
 * way (node's `value: any`, the DOM's `MessageEvent`, Electron's
 * `MessageEvent`), so it is left open here.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type PortListener = (...args: any[]) => void;

/** Options of {@link exposeWorkers} and {@link workersFrom}. */
export interface BridgeOptions {
  /**
   * Name of the bridge on the port, so several bridges (or other traffic)
   * can share one: each side only reads messages of its channel.
   * Default `'woolrx'`.
   */
  readonly channel?: string;
}

/** An error as it crosses the port. */
export interface BridgeErrorPayload {
  readonly name: string;
  readonly message: string;
  readonly code?: string | number;
}

/** A worker as it crosses the port: plain data (structured-clone safe). */
export interface BridgeWorkerPayload {
  readonly uid: string;
  readonly address: string;
  readonly pid: number;
  readonly version: string;
  readonly tags: string[];
  readonly extra: Record<string, string>;
  readonly secure: boolean;
  readonly options: Record<string, number | boolean | string>;
}

/** Every message of the bridge protocol; `woolrxBridge` holds the channel name. */
export type BridgeMessage =
  | { readonly woolrxBridge: string; readonly kind: 'subscribe'; readonly id: string }
  | { readonly woolrxBridge: string; readonly kind: 'release'; readonly id: string }
  | {
      readonly woolrxBridge: string;
      readonly kind: 'next';
      readonly id: string;
      readonly type: DiscoveryEventType;
      readonly worker: BridgeWorkerPayload;
    }
  | { readonly woolrxBridge: string; readonly kind: 'error'; readonly id: string; readonly error: BridgeErrorPayload }
  | { readonly woolrxBridge: string; readonly kind: 'complete'; readonly id: string };
