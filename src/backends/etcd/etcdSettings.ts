import { readNamespace, readOptions, type OptionReader } from '../../discovery/readOptions.js';
import type { EtcdDiscoveryOptions, EtcdSettings, EtcdTlsOptions } from './types.js';

const ENDPOINT = /^(https?):\/\/([^/\s]+?)\/?$/;
/** `host:port` or `[v6]:port`, etcdctl's form of an endpoint. */
const HOST_PORT = /^(\[[0-9A-Fa-f:.]+(?:%[\w.-]+)?\]|[^\s/:[\]@?#]+):(\d{1,5})$/;
const MAX_TTL = 2_000_000;
const KNOWN = [
  'endpoints',
  'ttl',
  'prefix',
  'tls',
  'auth',
  'requestTimeout',
] as const satisfies readonly (keyof EtcdDiscoveryOptions)[];

function pem(read: OptionReader, name: string, value: unknown): Buffer | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'string' && value.length > 0) return Buffer.from(value, 'utf8');
  if (value instanceof Uint8Array && value.length > 0) return Buffer.from(value);
  return read.fail(name, 'PEM text or bytes', value);
}

/** `http://[::1` matches {@link ENDPOINT} but no client can connect to it. */
function parsesAsUrl(endpoint: string): boolean {
  try {
    return new URL(endpoint).hostname !== '';
  } catch {
    return false;
  }
}

/**
 * An endpoint written `host:port` (as etcdctl and etcd3 take it) as the URL
 * it means: `https://` when TLS is asked for, `http://` otherwise. Anything
 * else is returned as given.
 */
function asUrl(endpoint: unknown, tls: boolean): unknown {
  if (typeof endpoint !== 'string') return endpoint;
  const match = HOST_PORT.exec(endpoint);
  if (match === null) return endpoint;
  const port = Number(match[2]);
  if (port < 1 || port > 65_535) return endpoint;
  return `${tls ? 'https' : 'http'}://${match[1] ?? ''}:${port}`;
}

function endpointsOf(read: OptionReader, value: unknown, tls: boolean): string[] {
  if (value === undefined) return ['http://127.0.0.1:2379'];
  let list: unknown[];
  if (typeof value === 'string') list = value.split(',').map((part) => part.trim());
  else if (Array.isArray(value)) list = value as unknown[];
  else return read.fail('endpoints', 'a URL, a comma-separated list of URLs or an array of URLs', value);
  if (list.length === 0) read.fail('endpoints', 'at least one URL', value);
  const endpoints = list.map((given) => {
    const endpoint = asUrl(given, tls);
    if (typeof endpoint !== 'string' || !ENDPOINT.test(endpoint) || !parsesAsUrl(endpoint)) {
      read.fail('endpoints', 'URLs like http://127.0.0.1:2379 or https://etcd.example:2379, or host:port', given);
    }
    return endpoint.replace(/\/$/, '');
  });
  const schemes = new Set(endpoints.map((endpoint) => endpoint.slice(0, endpoint.indexOf(':'))));
  if (schemes.size > 1) read.fail('endpoints', 'URLs of one scheme (all http:// or all https://)', value);
  return endpoints;
}

function tlsOf(read: OptionReader, value: unknown, secure: boolean): EtcdSettings['tls'] {
  if (value === undefined || value === false) {
    if (value === false && secure) read.fail('tls', 'not false with https:// endpoints', value);
    return undefined;
  }
  if (!secure) read.fail('tls', 'absent with http:// endpoints (use https:// endpoints for TLS)', value);
  if (value === true) return {};
  if (value === null || typeof value !== 'object') return read.fail('tls', 'a boolean or { ca, cert, key }', value);
  const { ca, cert, key } = value as EtcdTlsOptions;
  const tls = { ca: pem(read, 'tls.ca', ca), cert: pem(read, 'tls.cert', cert), key: pem(read, 'tls.key', key) };
  if ((tls.cert === undefined) !== (tls.key === undefined)) {
    read.fail('tls', 'cert and key together, or neither', value);
  }
  return {
    ...(tls.ca === undefined ? {} : { ca: tls.ca }),
    ...(tls.cert === undefined ? {} : { cert: tls.cert }),
    ...(tls.key === undefined ? {} : { key: tls.key }),
  };
}

function authOf(read: OptionReader, auth: unknown): EtcdSettings['auth'] {
  if (auth === undefined) return undefined;
  if (auth === null || typeof auth !== 'object') return read.fail('auth', '{ username, password }', auth);
  const { username, password } = auth as Record<string, unknown>;
  if (typeof username !== 'string' || username.length === 0) read.fail('auth.username', 'a non-empty string', username);
  // The password is never shown in a message.
  if (typeof password !== 'string') read.fail('auth.password', 'a string', '(hidden)');
  return { username, password };
}

/**
 * Validates the namespace and options of {@link etcdDiscovery} and fills in defaults.
 * @param namespace What the caller passed as the namespace.
 * @param options What the caller passed as options.
 * @throws {TypeError} Naming a bad namespace, the first bad option, or any unknown one.
 * @internal
 */
export function etcdSettings(namespace: string | undefined, options: EtcdDiscoveryOptions): EtcdSettings {
  namespace = readNamespace('etcdDiscovery', namespace);
  const read = readOptions('etcdDiscovery', options, KNOWN);
  const tlsAsked = options.tls !== undefined && options.tls !== false;
  const endpoints = endpointsOf(read, options.endpoints, tlsAsked);
  const prefix =
    read.check('prefix', 'a string not ending with "/"', (value): value is string => {
      return typeof value === 'string' && !value.endsWith('/');
    }) ?? '/woolrx';
  const secure = endpoints[0]?.startsWith('https:') === true;
  return {
    endpoints,
    namespace,
    ttl: read.integer('ttl', 10, 1, MAX_TTL),
    prefix,
    workersPrefix: `${prefix}/${namespace}/workers/`,
    tls: tlsOf(read, options.tls, secure),
    auth: authOf(read, options.auth),
    requestTimeout: read.integer('requestTimeout', 10_000, 1, 2 ** 31 - 1),
  };
}
