import { WoolrxError } from '../../errors/WoolrxError.js';

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
