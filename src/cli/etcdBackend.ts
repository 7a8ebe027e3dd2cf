import { flagValues } from './flagValues.js';
import type { CliBackend, CliValues } from './types.js';
import { UsageError } from './UsageError.js';

/** Where `--user` takes the etcd password from (never a flag: it would show in `ps`). */
const PASSWORD_ENV = 'WOOLRX_ETCD_PASSWORD';
/** etcdDiscovery's default `requestTimeout`. */
const REQUEST_TIMEOUT_MS = 10_000;

/**
 * The `--backend etcd` entry of the `woolrx` CLI: an etcd v3 cluster, with
 * leased workers. Register it as `etcd: etcdBackend` in {@link backends}.
 * The backend module (and gRPC) is imported only when used. Bad values
 * come back from {@link etcdDiscovery} as a `TypeError` naming them; the
 * password of `--user` is read from `$WOOLRX_ETCD_PASSWORD`.
 *
 * @example
 * woolrx watch --backend etcd --endpoints 10.0.0.5:2379,10.0.0.6:2379 --namespace jobs --json
 * WOOLRX_ETCD_PASSWORD=… woolrx publish -b etcd --endpoints https://etcd:2379 --ca ca.pem \
 *   --user pool -n jobs -a 10.0.0.7:50051
 */
export const etcdBackend: CliBackend = Object.freeze<CliBackend>({
  summary: 'An etcd v3 cluster (leased workers)',
  flags: {
    endpoints: {
      type: 'string',
      multiple: true,
      valueName: 'URL[,URL]',
      description: 'Client URLs of the cluster, or host:port (default http://127.0.0.1:2379)',
    },
    ttl: {
      type: 'string',
      valueName: 'SECONDS',
      description: "Lease TTL of this publisher's workers (default 10)",
      commands: ['publish', 'relay'],
    },
    prefix: { type: 'string', valueName: 'PREFIX', description: 'Key prefix (default /woolrx)' },
    'request-timeout': {
      type: 'string',
      valueName: 'MS',
      description: 'Longest wait for one request, and for an unreachable cluster before list gives up (default 10000)',
    },
    ca: { type: 'string', valueName: 'FILE', description: 'PEM CA certificate to trust (use https:// endpoints)' },
    cert: { type: 'string', valueName: 'FILE', description: 'PEM client certificate (mTLS)' },
    key: { type: 'string', valueName: 'FILE', description: 'PEM private key of --cert' },
    user: { type: 'string', valueName: 'NAME', description: `etcd user; the password is read from $${PASSWORD_ENV}` },
  },
  reachTimeout: (values: CliValues) => flagValues.integer(values, 'request-timeout', 1) ?? REQUEST_TIMEOUT_MS,
  create: async (namespace: string, values: CliValues) => {
    const endpoints = flagValues.list(values, 'endpoints').flatMap((entry) => entry.split(','));
    const ca = flagValues.file(values, 'ca');
    const cert = flagValues.file(values, 'cert');
    const key = flagValues.file(values, 'key');
    const user = flagValues.text(values, 'user');
    const password = process.env[PASSWORD_ENV];
    if (user !== undefined && password === undefined) {
      throw new UsageError(`--user needs the password in $${PASSWORD_ENV}`);
    }
    const ttl = flagValues.integer(values, 'ttl', 1);
    const prefix = flagValues.text(values, 'prefix');
    const requestTimeout = flagValues.integer(values, 'request-timeout', 1);
    const { etcdDiscovery } = await import('../backends/etcd/index.js');
    return etcdDiscovery(namespace, {
      ...(endpoints.length === 0 ? {} : { endpoints }),
      ...(ttl === undefined ? {} : { ttl }),
      ...(prefix === undefined ? {} : { prefix }),
      ...(requestTimeout === undefined ? {} : { requestTimeout }),
      ...(ca === undefined && cert === undefined && key === undefined
        ? {}
        : {
            tls: {
              ...(ca === undefined ? {} : { ca }),
              ...(cert === undefined ? {} : { cert }),
              ...(key === undefined ? {} : { key }),
            },
          }),
      ...(user === undefined || password === undefined ? {} : { auth: { username: user, password } }),
    });
  },
});
