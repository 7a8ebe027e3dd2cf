import { WoolrxError } from '../../errors/WoolrxError.js';

/**
 * The mDNS socket of a LAN subscription or publisher failed: the port is
 * taken or forbidden, the interface address is not available, the interface
 * went away, the network is unreachable. Sent down the event stream (or as a
 * `publish` rejection) instead of being thrown in the host process.
 */
export class LanSocketError extends WoolrxError {
  /** The namespace concerned. */
  readonly namespace: string;
  /** The system error code (`EADDRNOTAVAIL`, `ENODEV`, ...), when there is one. */
  readonly errno: string | undefined;

  /**
   * @param namespace The namespace concerned.
   * @param what What was being done (`binding the mDNS socket`, ...).
   * @param cause The underlying error.
   */
  constructor(namespace: string, what: string, cause: unknown) {
    const errno =
      cause !== null && typeof cause === 'object' && typeof (cause as { code?: unknown }).code === 'string'
        ? (cause as { code: string }).code
        : undefined;
    const detail = cause instanceof Error ? cause.message : String(cause);
    super('WOOLRX_LAN_SOCKET', `mDNS socket failed while ${what} (namespace ${JSON.stringify(namespace)}): ${detail}`, {
      cause,
    });
    this.namespace = namespace;
    this.errno = errno;
  }
}
