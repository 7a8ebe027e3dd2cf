import { parseIntegerFlag } from './parseIntegerFlag.js';
import type { CliBackend, CliValues } from './types.js';
import { UsageError } from './UsageError.js';

function milliseconds(values: CliValues, flag: string): number | undefined {
  const text = values[flag];
  if (typeof text !== 'string') return undefined;
  const value = parseIntegerFlag(flag, text);
  if (value < 1) throw new UsageError(`--${flag}: ${value} is below 1`);
  return value;
}

function text(values: CliValues, flag: string): string | undefined {
  const value = values[flag];
  return typeof value === 'string' ? value : undefined;
}

/**
 * The `--backend lan` entry of the `woolrx` CLI: mDNS / DNS-SD on the local
 * network, wool's LAN format. Register it as `lan: lanBackend` in
 * {@link backends}. The backend module is imported only when used.
 *
 * @example
 * woolrx watch --backend lan --namespace jobs --json
 * woolrx publish --backend lan --namespace jobs --address 0.0.0.0:50051 --advertise-host 192.168.1.20
 */
export const lanBackend: CliBackend = Object.freeze({
  summary: "mDNS / DNS-SD on the local network (wool's LAN format)",
  flags: {
    'advertise-host': {
      type: 'string',
      valueName: 'HOST',
      description: "Address peers should connect to (default: the worker's host; a wildcard bind uses the default-route address)",
    },
    'no-probe': {
      type: 'boolean',
      description: 'Announce at once, without RFC 6762 probing (names are UUIDs)',
    },
    'expire-after': {
      type: 'string',
      valueName: 'MS',
      description: 'Drop a worker not seen for MS milliseconds (default 30000)',
    },
    'requery-interval': {
      type: 'string',
      valueName: 'MS',
      description: 'Ask the network again every MS milliseconds (default 10000, below --expire-after)',
    },
    'mdns-interface': {
      type: 'string',
      valueName: 'IPV4',
      description: 'IPv4 address of the interface to use for mDNS (default: all)',
    },
  },
  create: async (namespace, values) => {
    const advertiseHost = text(values, 'advertise-host');
    const expireAfter = milliseconds(values, 'expire-after');
    const requeryInterval = milliseconds(values, 'requery-interval');
    const iface = text(values, 'mdns-interface');
    const { lanDiscovery } = await import('../backends/lan/index.js');
    return lanDiscovery(namespace, {
      probe: values['no-probe'] !== true,
      ...(advertiseHost === undefined ? {} : { advertiseHost }),
      ...(expireAfter === undefined ? {} : { expireAfter }),
      ...(requeryInterval === undefined ? {} : { requeryInterval }),
      ...(iface === undefined ? {} : { interface: iface }),
    });
  },
} satisfies CliBackend);
