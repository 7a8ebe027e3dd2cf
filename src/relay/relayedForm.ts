import { isLoopbackHost } from '../model/isLoopbackHost.js';
import { isWildcardHost } from '../model/isWildcardHost.js';
import { parseAddress } from '../model/parseAddress.js';
import type { WorkerInfo } from '../model/types.js';
import { workerInfo } from '../model/workerInfo.js';
import { RELAY_MARK } from './RELAY_MARK.js';

/** What {@link relayedForm} needs of the relay's options. @internal */
export interface RelayFormSettings {
  readonly id: string;
  readonly advertiseHost: string | undefined;
  readonly sameHost: boolean;
  readonly pid: number | undefined;
}

/**
 * A source worker as the relay writes it in the target — its address
 * rewritten where needed, its pid replaced when asked, the relay mark set —
 * or why it is not relayed.
 * @internal
 * @param worker The source worker.
 * @param settings The relay's name, advertise host and same-host flag.
 * @returns `{ worker }` to relay, or `{ reason }` to skip.
 */
export function relayedForm(
  worker: WorkerInfo,
  settings: RelayFormSettings,
):
  | { readonly worker: WorkerInfo; readonly reason?: undefined }
  | { readonly worker?: undefined; readonly reason: string } {
  const mark = worker.extra[RELAY_MARK];
  if (mark !== undefined) {
    return { reason: `it was put there by relay ${JSON.stringify(mark)} (a relay copies a worker one hop only)` };
  }
  let address = worker.address;
  if (!settings.sameHost) {
    const parsed = parseAddress(address);
    if (parsed.kind === 'unix') {
      return {
        reason:
          `its address ${address} is a unix socket, which other hosts cannot reach ` +
          '(bind the worker to a TCP address)',
      };
    }
    const local = isLoopbackHost(parsed.host) ? 'loopback' : isWildcardHost(parsed.host) ? 'wildcard' : undefined;
    if (local !== undefined) {
      const host = settings.advertiseHost;
      if (host === undefined) {
        return {
          reason:
            `its address ${address} is on a ${local} host, which other hosts cannot reach; ` +
            "pass advertiseHost (CLI: --advertise-host) with this host's address",
        };
      }
      address = `${host.includes(':') && !host.startsWith('[') ? `[${host}]` : host}:${parsed.port}`;
    }
  }
  const pid = settings.pid ?? worker.pid;
  return { worker: workerInfo({ ...worker, address, pid, extra: { ...worker.extra, [RELAY_MARK]: settings.id } }) };
}
