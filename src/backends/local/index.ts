/**
 * `woolrx/local`: same-host worker discovery over POSIX shared memory,
 * wire-compatible with wool's `LocalDiscovery`. Node only (Linux).
 * @packageDocumentation
 */
export { localDiscovery } from './localDiscovery.js';
export type { LocalDiscoveryOptions } from './types.js';
export { FlockUnavailableError } from './addon/FlockUnavailableError.js';
export { LockTimeoutError } from './lock/LockTimeoutError.js';
export { UnsafeObjectError } from './safe-fs/UnsafeObjectError.js';
export { TmpdirUnusableError } from './TmpdirUnusableError.js';
export { CapacityExhaustedError } from './segment/segmentErrors.js';
export { BlockExhaustedError } from './block/BlockExhaustedError.js';
export { SegmentNotReadyError, SegmentTooLargeError, SharedMemoryUnavailableError } from './segment/segmentErrors.js';
export { shortHash } from './names/shortHash.js';
