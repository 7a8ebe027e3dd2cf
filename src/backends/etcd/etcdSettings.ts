import { describeValue } from '../../model/describeValue.js';
import type { EtcdDiscoveryOptions, EtcdSettings, EtcdTlsOptions } from './types.js';

const ENDPOINT = /^(https?):\/\/([^/\s]+?)\/?$/;
const MAX_TTL = 2_000_000;

function fail(name: string, value: unknown, expected: string): never {
  throw new TypeError(`Invalid etcdDiscovery option ${name}: ${describeValue(value)} (expected ${expected})`);
}

function integer(name: string, value: unknown, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    fail(name, value, `an integer from ${min} to ${max}`);
  }
  return value;
}

function pem(name: string, value: unknown): Buffer | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'string' && value.length > 0) return Buffer.from(value, 'utf8');
  if (value instanceof Uint8Array && value.length > 0) return Buffer.from(value);
  return fail(name, value, 'PEM text or bytes');
}

function endpointsOf(value: unknown): string[] {
  if (value === undefined) return ['http://127.0.0.1:2379'];
  let list: unknown[];
  if (typeof value === 'string') list = value.split(',').map((part) => part.trim());
  else if (Array.isArray(value)) list = value as unknown[];
  else return fail('endpoints', value, 'a URL, a comma-separated list of URLs or an array of URLs');
  if (list.length === 0) fail('endpoints', value, 'at least one URL');
  const endpoints = list.map((endpoint) => {
    if (typeof endpoint !== 'string' || !ENDPOINT.test(endpoint)) {
      fail('endpoints', endpoint, 'a URL like http://127.0.0.1:2379 or https://etcd.example:2379');
    }
    return endpoint.replace(/\/$/, '');
  });
  const schemes = new Set(endpoints.map((endpoint) => endpoint.slice(0, endpoint.indexOf(':'))));
  if (schemes.size > 1) fail('endpoints', value, 'URLs of one scheme (all http:// or all https://)');
  return endpoints;
}

function tlsOf(value: unknown, secure: boolean): EtcdSettings['tls'] {
  if (value === undefined || value === false) {
    if (value === false && secure) fail('tls', value, 'not false with https:// endpoints');
    return undefined;
  }
  if (!secure) fail('tls', value, 'https:// endpoints to go with it (the endpoints are http://)');
  if (value === true) return {};
  if (value === null || typeof value !== 'object') return fail('tls', value, 'a boolean or { ca, cert, key }');
  const { ca, cert, key } = value as EtcdTlsOptions;
  const tls = { ca: pem('tls.ca', ca), cert: pem('tls.cert', cert), key: pem('tls.key', key) };
  if ((tls.cert === undefined) !== (tls.key === undefined)) {
    fail('tls', value, 'cert and key together, or neither');
  }
  return {
    ...(tls.ca === undefined ? {} : { ca: tls.ca }),
    ...(tls.cert === undefined ? {} : { cert: tls.cert }),
    ...(tls.key === undefined ? {} : { key: tls.key }),
  };
}

/**
 * Validates the options of {@link etcdDiscovery} and fills in defaults.
 * @param options What the caller passed.
 * @returns The settings.
 * @throws {TypeError} Naming the first bad option.
 * @internal
 */
export function etcdSettings(options: EtcdDiscoveryOptions): EtcdSettings {
  if (options === null || typeof options !== 'object') {
    throw new TypeError(`Invalid etcdDiscovery options: ${describeValue(options)} (expected an object)`);
  }
  const endpoints = endpointsOf(options.endpoints);
  const namespace = options.namespace ?? 'default';
  if (typeof namespace !== 'string' || namespace.length === 0 || namespace.includes('/')) {
    fail('namespace', namespace, 'a non-empty string without "/"');
  }
  const prefix = options.prefix ?? '/woolrx';
  if (typeof prefix !== 'string' || prefix.endsWith('/')) fail('prefix', prefix, 'a string not ending with "/"');
  const secure = endpoints[0]?.startsWith('https:') === true;
  const auth = options.auth;
  if (auth !== undefined) {
    if (auth === null || typeof auth !== 'object') fail('auth', auth, '{ username, password }');
    if (typeof auth.username !== 'string' || auth.username.length === 0) {
      fail('auth.username', auth.username, 'a non-empty string');
    }
    if (typeof auth.password !== 'string') fail('auth.password', '(hidden)', 'a string');
  }
  return {
    endpoints,
    namespace,
    ttl: integer('ttl', options.ttl, 10, 1, MAX_TTL),
    prefix,
    workersPrefix: `${prefix}/${namespace}/workers/`,
    tls: tlsOf(options.tls, secure),
    auth: auth === undefined ? undefined : { username: auth.username, password: auth.password },
    requestTimeout: integer('requestTimeout', options.requestTimeout, 10_000, 1, 2 ** 31 - 1),
  };
}
