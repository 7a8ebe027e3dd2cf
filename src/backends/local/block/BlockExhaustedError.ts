import { WoolrxError } from '../../../errors/WoolrxError.js';

/** A worker's encoded metadata does not fit in its block. */
export class BlockExhaustedError extends WoolrxError {
  /** Bytes the record needs (length prefix included). */
  readonly size: number;
  /** Bytes the block has. */
  readonly blockSize: number;
  /** The worker whose metadata did not fit. */
  readonly uid: string;

  /**
   * @param size Bytes the record needs (length prefix included).
   * @param blockSize Bytes the block has.
   * @param uid The worker whose metadata did not fit.
   */
  constructor(size: number, blockSize: number, uid: string) {
    super('WOOLRX_BLOCK_EXHAUSTED', `Metadata of worker ${uid} needs ${size} bytes but its block holds ${blockSize}`);
    this.size = size;
    this.blockSize = blockSize;
    this.uid = uid;
  }
}
