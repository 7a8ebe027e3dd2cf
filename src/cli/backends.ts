import { readFileSync } from 'node:fs';
import { lanBackend } from './lanBackend.js';
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

function text(values: CliValues, flag: string): string | undefined {
  const value = values[flag];
  return typeof value === 'string' ? value : undefined;
}

function list(values: CliValues, flag: string): string[] {
  const value = values[flag];
  if (typeof value === 'string') return [value];
  return Array.isArray(value) ? [...(value as readonly string[])] : [];
}

function pemFile(values: CliValues, flag: string): Buffer | undefined {
  const path = text(values, flag);
  if (path === undefined) return undefined;
  try {
    return readFileSync(path);
  } catch (error) {
    throw new UsageError(`--${flag} ${JSON.stringify(path)}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
}

/** Only the keys whose value is defined (the options objects are exactOptionalPropertyTypes-strict). */
function defined<T extends Record<string, unknown>>(object: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(object).filter(([, value]) => value !== undefined)) as {
    [K in keyof T]?: Exclude<T[K], undefined>;
  };
}

/** The environment variable `--user` takes the etcd password from (never a flag: it would show in `ps`). */
export const ETCD_PASSWORD_ENV = 'WOOLRX_ETCD_PASSWORD';

/**
 * The `--backend` choices of the `woolrx` CLI, by name; `local` is the
 * default. Each entry declares its own flags (accepted only with it) and
 * builds a {@link Discovery} for a namespace. Backends are imported lazily,
 * so `--help` and argument errors never load native code or sockets.
 *
 * Adding a backend is one entry here: `{ summary, flags, create }`.
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
      const poll = positive(values, 'poll-interval', 0);
      const pollInterval: number | false | undefined = poll === 0 ? false : poll;
      const { localDiscovery } = await import('../backends/local/index.js');
      return localDiscovery(
        namespace,
        defined({ capacity, blockSize, lockTimeout, pollInterval }),
      );
    },
  },
  lan: lanBackend,
  etcd: {
    summary: 'An etcd v3 cluster (leased workers)',
    flags: {
      endpoints: {
        type: 'string',
        multiple: true,
        valueName: 'URL[,URL]',
        description: 'Client URLs of the cluster (default http://127.0.0.1:2379)',
      },
      ttl: { type: 'string', valueName: 'SECONDS', description: "Lease TTL of this publisher's workers (default 10)" },
      prefix: { type: 'string', valueName: 'PREFIX', description: 'Key prefix (default /woolrx)' },
      'request-timeout': { type: 'string', valueName: 'MS', description: 'Longest wait for one request (default 10000)' },
      ca: { type: 'string', valueName: 'FILE', description: 'PEM CA certificate to trust (implies TLS)' },
      cert: { type: 'string', valueName: 'FILE', description: 'PEM client certificate (mTLS)' },
      key: { type: 'string', valueName: 'FILE', description: 'PEM private key of --cert' },
      user: { type: 'string', valueName: 'NAME', description: `etcd user; the password is read from $${ETCD_PASSWORD_ENV}` },
    },
    create: async (namespace, values) => {
      const endpoints = list(values, 'endpoints').flatMap((entry) => entry.split(','));
      const tls = defined({ ca: pemFile(values, 'ca'), cert: pemFile(values, 'cert'), key: pemFile(values, 'key') });
      const user = text(values, 'user');
      const password = process.env[ETCD_PASSWORD_ENV];
      if (user !== undefined && password === undefined) {
        throw new UsageError(`--user needs the password in $${ETCD_PASSWORD_ENV}`);
      }
      const options = defined({
        namespace,
        endpoints: endpoints.length === 0 ? undefined : endpoints,
        ttl: positive(values, 'ttl', 0),
        prefix: text(values, 'prefix'),
        requestTimeout: positive(values, 'request-timeout', 0),
        tls: Object.keys(tls).length === 0 ? undefined : tls,
        auth: user === undefined || password === undefined ? undefined : { username: user, password },
      });
      const { etcdDiscovery } = await import('../backends/etcd/index.js');
      return etcdDiscovery(options);
    },
  },
} satisfies Record<string, CliBackend>);
