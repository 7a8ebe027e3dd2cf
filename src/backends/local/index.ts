/**
 * `woolrx/local`: same-host worker discovery over POSIX shared memory,
 * wire-compatible with wool's `LocalDiscovery`. Node only (Linux).
 * @packageDocumentation
 */
export { localDiscovery } from './localDiscovery.js';
export type { LocalDiscoveryOptions } from './types.js';
export { FlockUnavailableError } from './FlockUnavailableError.js';
export { LockTimeoutError } from './LockTimeoutError.js';
export { UnsafeObjectError } from './UnsafeObjectError.js';
export { TmpdirUnusableError } from './TmpdirUnusableError.js';
export { CapacityExhaustedError } from './CapacityExhaustedError.js';
export { BlockExhaustedError } from './BlockExhaustedError.js';
export { SegmentNotReadyError, SegmentTooLargeError, SharedMemoryUnavailableError } from './segmentErrors.js';
export { shortHash } from './shortHash.js';
