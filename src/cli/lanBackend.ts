import { flagValues } from './flagValues.js';
import type { CliBackend } from './types.js';

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
    const advertiseHost = flagValues.text(values, 'advertise-host');
    const expireAfter = flagValues.integer(values, 'expire-after', 1);
    const requeryInterval = flagValues.integer(values, 'requery-interval', 1);
    const iface = flagValues.text(values, 'mdns-interface');
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
