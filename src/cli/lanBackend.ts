import { readFileSync, statSync } from 'node:fs';
import { flagValues } from './flagValues.js';
import type { CliBackend, CliValues } from './types.js';
import { UsageError } from './UsageError.js';

const KEY_FLAG = 'signing-key-file';

/**
 * The signing keys the `--signing-key-file` flags name (the first signs,
 * all verify): each file's contents without one trailing newline, as a
 * string when they are UTF-8 text (the string key rule), else as bytes. A
 * file other users can read is refused: the key is a shared secret.
 * Never prints the key.
 */
function readKeyFiles(values: CliValues): (string | Buffer)[] {
  return flagValues.list(values, KEY_FLAG).map((path) => {
    const where = `--${KEY_FLAG} ${JSON.stringify(path)}`;
    let bytes: Buffer;
    try {
      const { mode } = statSync(path);
      if ((mode & 0o077) !== 0) {
        throw new UsageError(
          `${where}: readable by other users (mode ${(mode & 0o777).toString(8)}); run chmod 600 ${path}`,
        );
      }
      bytes = readFileSync(path);
    } catch (error) {
      if (error instanceof UsageError) throw error;
      throw new UsageError(`${where}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
    }
    if (bytes.at(-1) === 0x0a) bytes = bytes.subarray(0, bytes.at(-2) === 0x0d ? -2 : -1);
    try {
      const text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
      return text.includes('\0') ? bytes : text;
    } catch {
      return bytes;
    }
  });
}

/**
 * The `--backend lan` entry of the `woolrx` CLI: mDNS / DNS-SD on the local
 * network, wool's LAN format. Register it as `lan: lanBackend` in
 * {@link backends}. The backend module is imported only when used.
 *
 * @example
 * woolrx watch --backend lan --namespace jobs --json
 * woolrx publish --backend lan --namespace jobs --address 0.0.0.0:50051 --advertise-host 192.168.1.20
 * woolrx watch --backend lan --namespace jobs --signing-key-file /etc/woolrx/jobs.key
 */
export const lanBackend: CliBackend = Object.freeze({
  summary: "mDNS / DNS-SD on the local network (wool's LAN format)",
  flags: {
    'advertise-host': {
      type: 'string',
      valueName: 'HOST',
      description:
        "Address peers should connect to (default: the worker's host; a wildcard bind uses the default-route address)",
      commands: ['publish', 'relay'],
    },
    'no-probe': {
      type: 'boolean',
      description: 'Announce at once, without RFC 6762 probing (names are UUIDs)',
      commands: ['publish', 'relay'],
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
    [KEY_FLAG]: {
      type: 'string',
      multiple: true,
      valueName: 'PATH',
      description:
        'Sign announced workers and list only signed ones, with the shared secret in PATH (chmod 600); ' +
        'several while rolling a key (the first signs)',
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
    const keys = readKeyFiles(values);
    const { lanDiscovery } = await import('../backends/lan/index.js');
    return lanDiscovery(namespace, {
      probe: values['no-probe'] !== true,
      ...(advertiseHost === undefined ? {} : { advertiseHost }),
      ...(expireAfter === undefined ? {} : { expireAfter }),
      ...(requeryInterval === undefined ? {} : { requeryInterval }),
      ...(iface === undefined ? {} : { interface: iface }),
      ...(keys.length === 0 ? {} : { signingKey: keys.length === 1 ? keys[0] : keys }),
    });
  },
} satisfies CliBackend);
