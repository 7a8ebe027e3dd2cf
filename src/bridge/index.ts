/**
 * `woolrx/bridge`: carries a discovery's streams (events, `synced`,
 * diagnostics) across a MessagePort-like channel
 * (Electron, worker_threads, `window.postMessage`, a WebSocket adapter).
 * Renderer-safe: no Node built-in.
 * @packageDocumentation
 */
export { exposeWorkers } from './exposeWorkers.js';
export { discoveryFrom } from './discoveryFrom.js';
export { workersFrom } from './workersFrom.js';
export { BridgeClosedError } from './BridgeClosedError.js';
export type {
  BridgeDiagnosticPayload,
  BridgeErrorPayload,
  BridgeMessage,
  BridgeOptions,
  BridgePort,
  BridgeStream,
  BridgeWorkerPayload,
  PortListener,
} from './types.js';
