import { lookup } from 'node:dns/promises';
import { isIP, isIPv4 } from 'node:net';
import { errorMessage } from '../../discovery/errorMessage.js';
import { describeValue } from '../../model/describeValue.js';
import { parseAddress } from '../../model/parseAddress.js';
import type { WorkerInfo } from '../../model/types.js';
import { AdvertiseHostError } from './AdvertiseHostError.js';
import { defaultRouteAddress } from './defaultRouteAddress.js';
import { isLoopbackHost } from '../../model/isLoopbackHost.js';
import { isWildcardHost } from '../../model/isWildcardHost.js';
import type { AdvertiseHost } from './types.js';

/** Where peers reach one worker: its SRV port and A/AAAA addresses. @internal */
export interface AdvertisedAddress {
  readonly port: number;
  readonly ipv4: readonly string[];
  readonly ipv6: readonly string[];
}

type Addresses = Omit<AdvertisedAddress, 'port'>;

/**
 * The advertise-address policy of one LAN publisher: which port and A/AAAA
 * addresses a worker is announced with.
 *
 * | situation | advertised |
 * |---|---|
 * | `advertiseHost` given | its address (a host name resolved once; a function called once, lazily) |
 * | worker on a wildcard host | the default-route address, found once per publisher and family (see below) |
 * | worker on a loopback host | that address, and a warning (other hosts cannot reach it) |
 * | worker on another host | that address (a host name resolved once) |
 * | a `unix:` worker | `TypeError` |
 *
 * On a wildcard host without a default route: {@link AdvertiseHostError}.
 * @internal Used by {@link LanPublisher}.
 */
export class AdvertisePolicy {
  readonly #advertiseHost: AdvertiseHost | undefined;
  readonly #warn: (message: string, uid: string) => void;
  readonly #lookups = new Map<string, Promise<Addresses>>();
  #advertised: Promise<string> | undefined;
  /** The default-route address per family, found once (as wool does): an update never moves a worker. */
  readonly #defaultRoute = new Map<4 | 6, Promise<string | undefined>>();

  /**
   * @param advertiseHost The `advertiseHost` option.
   * @param warn Where a warning about one worker goes (the loopback case).
   */
  constructor(advertiseHost: AdvertiseHost | undefined, warn: (message: string, uid: string) => void) {
    this.#advertiseHost = advertiseHost;
    this.#warn = warn;
  }

  /**
   * @param worker The worker to announce.
   * @returns Its port and the addresses to announce.
   * @throws {TypeError} (as a rejection) For a unix address, or an `advertiseHost` function returning a wildcard or
   * a non-string.
   * @throws {AdvertiseHostError} (as a rejection) For a wildcard host without a default route, or a host name that
   * does not resolve.
   */
  async addressOf(worker: WorkerInfo): Promise<AdvertisedAddress> {
    const parsed = parseAddress(worker.address);
    if (parsed.kind !== 'tcp') {
      throw new TypeError(
        `publish: worker ${worker.uid} has address ${describeValue(worker.address)}; ` +
          'a unix socket cannot be advertised on the LAN',
      );
    }
    return { ...(await this.#hostAddresses(worker.uid, parsed.host, parsed.ipv6)), port: parsed.port };
  }

  async #hostAddresses(uid: string, host: string, ipv6: boolean): Promise<Addresses> {
    if (this.#advertiseHost !== undefined) return this.#resolve(await this.#advertisedHost());
    if (isWildcardHost(host)) {
      const families: (4 | 6)[] = ipv6 ? [4, 6] : [4];
      for (const family of families) {
        let pending = this.#defaultRoute.get(family);
        if (pending === undefined) {
          pending = defaultRouteAddress(family);
          this.#defaultRoute.set(family, pending);
        }
        const address = await pending;
        if (address !== undefined) return family === 4 ? { ipv4: [address], ipv6: [] } : { ipv4: [], ipv6: [address] };
      }
      throw new AdvertiseHostError(
        host,
        `worker ${uid} listens on a wildcard address and this host has no default route`,
      );
    }
    if (isLoopbackHost(host)) {
      this.#warn(
        `Worker ${uid} is advertised at loopback address ${host}: only this host can reach it; ` +
          'pass advertiseHost (CLI: --advertise-host) for other hosts',
        uid,
      );
    }
    return this.#resolve(host);
  }

  /** The advertiseHost option's value: a string as is, a function called once per publisher. */
  #advertisedHost(): Promise<string> {
    this.#advertised ??= (async () => {
      const option = this.#advertiseHost;
      const host = typeof option === 'function' ? await option() : option;
      if (typeof host !== 'string' || isWildcardHost(host)) {
        throw new TypeError(
          `advertiseHost returned ${describeValue(host)}: expected the address peers should use, not a wildcard`,
        );
      }
      return host;
    })();
    return this.#advertised;
  }

  /** An IP literal as itself; a host name through the resolver, once per publisher. */
  #resolve(host: string): Promise<Addresses> {
    const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
    if (isIP(bare) !== 0)
      return Promise.resolve(isIPv4(bare) ? { ipv4: [bare], ipv6: [] } : { ipv4: [], ipv6: [bare] });
    let pending = this.#lookups.get(bare);
    if (pending === undefined) {
      pending = lookup(bare, { all: true }).then(
        (found) => ({
          ipv4: found.filter((entry) => entry.family === 4).map((entry) => entry.address),
          ipv6: found
            .filter((entry) => entry.family === 6 && !entry.address.includes('%'))
            .map((entry) => entry.address),
        }),
        (error: unknown) => {
          throw new AdvertiseHostError(bare, `it does not resolve (${errorMessage(error)})`, { cause: error });
        },
      );
      this.#lookups.set(bare, pending);
    }
    return pending;
  }
}
