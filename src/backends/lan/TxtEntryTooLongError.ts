import { WoolrxError } from '../../errors/WoolrxError.js';

/**
 * A TXT entry (`key=value` in UTF-8) of a worker is longer than the 255
 * bytes one DNS character-string can hold; the worker cannot be advertised
 * over mDNS. Shorten the value (usually `extra` or `tags`).
 */
export class TxtEntryTooLongError extends WoolrxError {
  /** The TXT key whose entry is too long (`extra`, `tags`, `version`, ...). */
  readonly key: string;
  /** The entry's length in bytes. */
  readonly bytes: number;
  /** The worker concerned. */
  readonly uid: string;

  /**
   * @param key The TXT key.
   * @param bytes The entry's length in bytes.
   * @param uid The worker concerned.
   */
  constructor(key: string, bytes: number, uid: string) {
    super(
      'WOOLRX_LAN_TXT_TOO_LONG',
      `TXT entry ${JSON.stringify(key)} of worker ${uid} is ${bytes} bytes; ` +
        `an mDNS TXT entry holds at most 255 (shorten ${key})`,
    );
    this.key = key;
    this.bytes = bytes;
    this.uid = uid;
  }
}
