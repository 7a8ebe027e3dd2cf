import { WoolrxError } from '../../../errors/WoolrxError.js';

/**
 * A namespace's shared-memory segment has no header yet after `lockTimeout`:
 * the process creating it died (or stalled) before writing it. A local
 * publisher rejects with it and leaves the segment alone; the last process
 * out of the namespace removes it. Code `'WOOLRX_SEGMENT_NOT_READY'`.
 */
export class SegmentNotReadyError extends WoolrxError {
  /** The segment's path, e.g. `/dev/shm/<short hash>`. */
  readonly path: string;
  /** The namespace it belongs to. */
  readonly namespace: string;

  /**
   * @param waited How long the publisher waited for the header, in ms.
   */
  constructor(path: string, namespace: string, waited: number) {
    super(
      'WOOLRX_SEGMENT_NOT_READY',
      `Segment ${path} of namespace ${JSON.stringify(namespace)} has no WLD1 header after ${waited} ms`,
    );
    this.path = path;
    this.namespace = namespace;
  }
}

/**
 * A namespace's shared-memory segment claims more worker slots than woolrx
 * maps (a corrupt or foreign header). A local publisher rejects with it and
 * does not use the segment. Code `'WOOLRX_SEGMENT_TOO_LARGE'`.
 */
export class SegmentTooLargeError extends WoolrxError {
  /** The segment's path. */
  readonly path: string;
  /** The namespace it belongs to. */
  readonly namespace: string;

  /**
   * @param capacity The capacity its header claims.
   * @param maxCapacity The most woolrx accepts.
   */
  constructor(path: string, namespace: string, capacity: number, maxCapacity: number) {
    super(
      'WOOLRX_SEGMENT_TOO_LARGE',
      `Segment ${path} of namespace ${JSON.stringify(namespace)} claims a capacity of ${capacity} slots, more ` +
        `than the ${maxCapacity} accepted; not used`,
    );
    this.path = path;
    this.namespace = namespace;
  }
}

/**
 * This system has no POSIX shared memory at `/dev/shm` (not Linux, or a
 * container without it): `localDiscovery()` throws it at construction. Use
 * another backend there. Code `'WOOLRX_NO_SHARED_MEMORY'`.
 */
export class SharedMemoryUnavailableError extends WoolrxError {
  /** The directory that is missing. */
  readonly path: string;

  /** @param path The directory that is missing (`/dev/shm`). */
  constructor(path: string) {
    super(
      'WOOLRX_NO_SHARED_MEMORY',
      `localDiscovery needs POSIX shared memory at ${path} (Linux); this system has none`,
    );
    this.path = path;
  }
}

/** A namespace has no free slot left for another worker. */
export class CapacityExhaustedError extends WoolrxError {
  /** The namespace's capacity (number of worker slots). */
  readonly capacity: number;
  /** The namespace that is full. */
  readonly namespace: string;

  /**
   * @param capacity The namespace's capacity.
   * @param namespace The namespace that is full.
   */
  constructor(capacity: number, namespace: string) {
    super(
      'WOOLRX_CAPACITY_EXHAUSTED',
      `Namespace ${JSON.stringify(namespace)} is full: all ${capacity} worker slots are taken`,
    );
    this.capacity = capacity;
    this.namespace = namespace;
  }
}
