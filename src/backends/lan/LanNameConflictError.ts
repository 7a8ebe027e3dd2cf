import { WoolrxError } from '../../errors/WoolrxError.js';

/**
 * While probing (RFC 6762 §8.1), another responder on the network answered
 * for the worker's instance name with different data: that uid is already
 * advertised by someone else.
 */
export class LanNameConflictError extends WoolrxError {
  /** The worker whose name is taken. */
  readonly uid: string;

  /**
   * @param uid The worker whose name is taken.
   * @param name The instance name.
   */
  constructor(uid: string, name: string) {
    super('WOOLRX_LAN_NAME_CONFLICT', `mDNS name ${name} of worker ${uid} is already in use on the network`);
    this.uid = uid;
  }
}
