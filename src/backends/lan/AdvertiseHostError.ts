import { WoolrxError } from '../../errors/WoolrxError.js';

/**
 * The LAN publisher cannot tell which address to advertise for a worker: it
 * listens on a wildcard address (`0.0.0.0`, `::`) and this host has no
 * default route to take an address from, or a host name did not resolve.
 * Fix: pass `advertiseHost` to `lanDiscovery` (CLI: `--advertise-host`).
 */
export class AdvertiseHostError extends WoolrxError {
  /** The host that could not be turned into an address to advertise. */
  readonly host: string;

  /**
   * @param host The host that could not be turned into an address.
   * @param reason Why.
   * @param options Standard `ErrorOptions` (`cause`).
   */
  constructor(host: string, reason: string, options?: ErrorOptions) {
    super(
      'WOOLRX_LAN_ADVERTISE_HOST',
      `Cannot advertise host ${JSON.stringify(host)}: ${reason}; ` +
        'pass advertiseHost to lanDiscovery (CLI: --advertise-host) with the address peers should use',
      options,
    );
    this.host = host;
  }
}
