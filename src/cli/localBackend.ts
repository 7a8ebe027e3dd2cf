import { flagValues } from './flagValues.js';
import { localNamespaces } from './localNamespaces.js';
import type { CliBackend } from './types.js';

/** Only the keys whose value is defined (the options objects are exactOptionalPropertyTypes-strict). */
function defined<T extends Record<string, unknown>>(object: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(object).filter(([, value]) => value !== undefined)) as {
    [K in keyof T]?: Exclude<T[K], undefined>;
  };
}

/**
 * `--backend local` (the default): shared memory on this host, wool's
 * same-host format. Flags map to {@link localDiscovery}'s options.
 */
export const localBackend: CliBackend = Object.freeze<CliBackend>({
  summary: "Shared memory on this host (wool's same-host format)",
  flags: {
    capacity: {
      type: 'string',
      valueName: 'N',
      description: 'Slots of a namespace segment this process creates (default 128)',
    },
    'block-size': {
      type: 'string',
      valueName: 'BYTES',
      description: 'Size of each worker block this process creates (default 1024)',
    },
    'lock-timeout': {
      type: 'string',
      valueName: 'MS',
      description: 'Give up on the namespace lock after MS milliseconds (default 30000)',
    },
    'poll-interval': {
      type: 'string',
      valueName: 'MS',
      description: 'Fallback rescan period in milliseconds, 0 to disable (default ~1000)',
    },
  },
  namespaces: () => localNamespaces(),
  create: async (namespace, values) => {
    const capacity = flagValues.integer(values, 'capacity', 0);
    const blockSize = flagValues.integer(values, 'block-size', 0);
    const lockTimeout = flagValues.integer(values, 'lock-timeout', 0);
    const poll = flagValues.integer(values, 'poll-interval', 0);
    const pollInterval: number | false | undefined = poll === 0 ? false : poll;
    const { localDiscovery } = await import('../backends/local/index.js');
    return localDiscovery(namespace, defined({ capacity, blockSize, lockTimeout, pollInterval }));
  },
});
