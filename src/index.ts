/**
 * woolrx core: the worker model, events, codecs, operators and the
 * in-memory backend. Renderer-safe: imports no Node built-in, so it runs in
 * browsers and Electron renderers. Backends that need Node live on subpaths
 * (`woolrx/local`, `woolrx/lan`, `woolrx/etcd`).
 * @packageDocumentation
 */

// Model
export type {
  ChannelOptions,
  Compression,
  WorkerAddress,
  WorkerInfo,
  WorkerInfoInit,
  WorkerPredicate,
} from './model/types.js';
export { DEFAULT_CHANNEL_OPTIONS } from './model/DEFAULT_CHANNEL_OPTIONS.js';
export { workerInfo } from './model/workerInfo.js';
export { sameWorker } from './model/sameWorker.js';
export { parseAddress } from './model/parseAddress.js';

// Events
export type {
  DiscoveryEvent,
  DiscoveryEventType,
  DiscoveryItem,
  DiscoverySynced,
  DropReason,
  WorkerSnapshot,
} from './events/types.js';
export { discoveryEvent } from './events/discoveryEvent.js';

// Errors
export { WoolrxError } from './errors/WoolrxError.js';
export { WorkerNotFoundError } from './errors/WorkerNotFoundError.js';
export { WorkerDecodeError } from './errors/WorkerDecodeError.js';
export { PublisherClosedError } from './errors/PublisherClosedError.js';
export { QueueClosedError } from './errors/QueueClosedError.js';
export { LeaseLostError } from './errors/LeaseLostError.js';
export type { LeaseLostReason } from './errors/LeaseLostError.js';
export { MissingDependencyError } from './errors/MissingDependencyError.js';
export { NodeOnlyEntryError } from './errors/NodeOnlyEntryError.js';

// Codecs
export { encodeWorker } from './codec/encodeWorker.js';
export { decodeWorker } from './codec/decodeWorker.js';
export type { TxtRecord, TxtValue } from './codec/types.js';
export { encodeTxt } from './codec/encodeTxt.js';
export { decodeTxt } from './codec/decodeTxt.js';

// Operators
export { diffSnapshots } from './operators/diffSnapshots.js';
export { toSnapshots } from './operators/toSnapshots.js';
export { filterWorkers } from './operators/filterWorkers.js';
export { PredicatedQueue } from './operators/PredicatedQueue.js';
export type { PredicatedQueueOptions } from './operators/PredicatedQueue.js';
export { predicatedTake } from './operators/predicatedTake.js';
export { leaseWorkers } from './operators/leaseWorkers.js';
export type { AcquireOptions, WorkerLease, WorkerLeases } from './operators/leaseWorkers.js';
export { shareWorkers } from './operators/shareWorkers.js';
export type { ShareWorkersConfig } from './operators/shareWorkers.js';
export { expireWorkers } from './operators/expireWorkers.js';

// Backend contract and the in-memory backend
export type { Discovery, DiscoveryDiagnostic, DiscoveryReader, WorkerPublisher } from './discovery/types.js';
export { memoryDiscovery } from './backends/memory/memoryDiscovery.js';
export type { MemoryDiscoveryOptions } from './backends/memory/memoryDiscovery.js';
export { MemoryRegistry } from './backends/memory/MemoryRegistry.js';

// Relay: one backend's workers copied into another
export { relayWorkers } from './relay/relayWorkers.js';
export { RELAY_MARK } from './relay/RELAY_MARK.js';
export type {
  RelayDiagnostic,
  RelayError,
  RelayOptions,
  RelaySkipped,
  RelayStatus,
  RelayStatusUpdate,
  RelayTargetState,
} from './relay/types.js';
