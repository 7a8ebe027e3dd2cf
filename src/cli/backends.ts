import { parseIntegerFlag } from './parseIntegerFlag.js';
import type { CliBackend, CliValues } from './types.js';
import { UsageError } from './UsageError.js';

function positive(values: CliValues, flag: string, min: number): number | undefined {
  const text = values[flag];
  if (typeof text !== 'string') return undefined;
  const value = parseIntegerFlag(flag, text);
  if (value < min) throw new UsageError(`--${flag}: ${value} is below ${min}`);
  return value;
}

/**
 * The `--backend` choices of the `woolrx` CLI, by name; `local` is the
 * default. Each entry declares its own flags (accepted only with it) and
 * builds a {@link Discovery} for a namespace. Backends are imported lazily,
 * so `--help` and argument errors never load native code.
 *
 * Adding a backend is one entry here, e.g.
 * `etcd: { summary, flags: { endpoints: {...} }, create: async (ns, v) => ... }`.
 */
export const backends: Readonly<Record<string, CliBackend>> = Object.freeze({
  local: {
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
    create: async (namespace, values) => {
      const capacity = positive(values, 'capacity', 0);
      const blockSize = positive(values, 'block-size', 0);
      const lockTimeout = positive(values, 'lock-timeout', 0);
      const pollInterval = positive(values, 'poll-interval', 0);
      const { localDiscovery } = await import('../backends/local/index.js');
      return localDiscovery(namespace, {
        ...(capacity === undefined ? {} : { capacity }),
        ...(blockSize === undefined ? {} : { blockSize }),
        ...(lockTimeout === undefined ? {} : { lockTimeout }),
        ...(pollInterval === undefined ? {} : { pollInterval: pollInterval === 0 ? false : pollInterval }),
      });
    },
  },
} satisfies Record<string, CliBackend>);
