/**
 * `woolrx/bridge`: carries worker events across a MessagePort-like channel
 * (Electron, worker_threads, `window.postMessage`, a WebSocket adapter).
 * Renderer-safe: no Node built-in.
 * @packageDocumentation
 */
export { exposeWorkers } from './exposeWorkers.js';
export { workersFrom } from './workersFrom.js';
export { BridgeClosedError } from './BridgeClosedError.js';
export type { BridgeErrorPayload, BridgeMessage, BridgeOptions, BridgePort, BridgeWorkerPayload, PortListener } from './types.js';
