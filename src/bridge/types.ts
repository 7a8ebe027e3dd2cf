import type { DiscoveryEventType, DropReason } from '../events/types.js';

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
  /** Sends one message (a plain, structured-clone safe object) to the other side. */
  postMessage(message: unknown): void;
  /** EventEmitter-style listening (node's ports and workers, Electron's `MessagePortMain`). */
  on?(type: string, listener: PortListener): unknown;
  /** Removes a listener added with `on`. */
  off?(type: string, listener: PortListener): unknown;
  /** Removes a listener added with `on`, where the port has no `off`. */
  removeListener?(type: string, listener: PortListener): unknown;
  /** DOM-style listening (DOM `MessagePort`, `Worker`, `window`). */
  addEventListener?(type: string, listener: PortListener): unknown;
  /** Removes a listener added with `addEventListener`. */
  removeEventListener?(type: string, listener: PortListener): unknown;
  /** The message handler property, used when the port has neither `on` nor `addEventListener`. */
  onmessage?: PortListener | null | undefined;
  /** Starts delivery on ports that queue messages until started (DOM and Electron ports). */
  start?(): void;
}

/**
 * A listener as ports declare it: every library types its argument its own
 * way (node's `value: any`, the DOM's `MessageEvent`, Electron's
 * `MessageEvent`), so it is left open here.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type PortListener = (...args: any[]) => void;

/** Options of {@link exposeWorkers}, {@link discoveryFrom} and {@link workersFrom}. */
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
  /** The original error's `name`. */
  readonly name: string;
  /** The original error's `message`. */
  readonly message: string;
  /** The original error's `code`, when it had one (e.g. `WOOLRX_LOCK_TIMEOUT`). */
  readonly code?: string | number;
}

/** A diagnostic as it crosses the port: `DiscoveryDiagnostic` with its `error` as plain data. */
export interface BridgeDiagnosticPayload {
  /** The diagnostic's kind (see `DiscoveryDiagnostic.kind`). */
  readonly kind: string;
  /** The namespace concerned. */
  readonly namespace: string;
  /** Human-readable description. */
  readonly message: string;
  /** The worker concerned, when known. */
  readonly uid?: string;
  /** The underlying error, when there is one. */
  readonly error?: BridgeErrorPayload;
}

/**
 * What a `subscribe` request asks the owning side for: `'events'` (worker
 * events only, what {@link workersFrom} asks for, and what a request with
 * no `stream` means), `'watch'` (the events and `synced`, what
 * {@link discoveryFrom} asks for) or `'diagnostics'`.
 */
export type BridgeStream = 'events' | 'watch' | 'diagnostics';

/** A worker as it crosses the port: plain data (structured-clone safe). */
export interface BridgeWorkerPayload {
  /** The worker's uid (see `WorkerInfo.uid`). */
  readonly uid: string;
  /** The worker's address (see `WorkerInfo.address`). */
  readonly address: string;
  /** The worker's process id. */
  readonly pid: number;
  /** The worker's software version. */
  readonly version: string;
  /** Capability tags. */
  readonly tags: string[];
  /** Free key/value metadata. */
  readonly extra: Record<string, string>;
  /** The worker requires TLS/mTLS. */
  readonly secure: boolean;
  /** Transport settings, as `ChannelOptions` fields. */
  readonly options: Record<string, number | boolean | string>;
}

/** Every message of the bridge protocol; `woolrxBridge` holds the channel name. */
export type BridgeMessage =
  | {
      /** The channel name (`BridgeOptions.channel`). */
      readonly woolrxBridge: string;
      /** Receiver → owner: subscribe the upstream for a new subscription id. */
      readonly kind: 'subscribe';
      /** The subscription this message belongs to. */
      readonly id: string;
      /** Which stream; `'events'` when absent. */
      readonly stream?: BridgeStream;
    }
  | {
      /** The channel name (`BridgeOptions.channel`). */
      readonly woolrxBridge: string;
      /** Receiver → owner: unsubscribe the upstream of this id. */
      readonly kind: 'release';
      /** The subscription this message belongs to. */
      readonly id: string;
    }
  | {
      /** The channel name (`BridgeOptions.channel`). */
      readonly woolrxBridge: string;
      /** Owner → receiver: one worker event. */
      readonly kind: 'next';
      /** The subscription this message belongs to. */
      readonly id: string;
      /** The event's type. */
      readonly type: DiscoveryEventType;
      /** The event's worker, as plain data. */
      readonly worker: BridgeWorkerPayload;
      /** A drop's reason, when the backend knew it. */
      readonly reason?: DropReason;
    }
  | {
      /** The channel name (`BridgeOptions.channel`). */
      readonly woolrxBridge: string;
      /** Owner → receiver: the initial state is complete (`watch` requests only). */
      readonly kind: 'synced';
      /** The subscription this message belongs to. */
      readonly id: string;
    }
  | {
      /** The channel name (`BridgeOptions.channel`). */
      readonly woolrxBridge: string;
      /** Owner → receiver: one diagnostic (`diagnostics` requests only). */
      readonly kind: 'diagnostic';
      /** The subscription this message belongs to. */
      readonly id: string;
      /** The diagnostic, as plain data. */
      readonly diagnostic: BridgeDiagnosticPayload;
    }
  | {
      /** The channel name (`BridgeOptions.channel`). */
      readonly woolrxBridge: string;
      /** Owner → receiver: the upstream errored; this subscription ends. */
      readonly kind: 'error';
      /** The subscription this message belongs to. */
      readonly id: string;
      /** The error, as plain data. */
      readonly error: BridgeErrorPayload;
    }
  | {
      /** The channel name (`BridgeOptions.channel`). */
      readonly woolrxBridge: string;
      /** Owner → receiver: the upstream completed; this subscription ends. */
      readonly kind: 'complete';
      /** The subscription this message belongs to. */
      readonly id: string;
    };
