import { createHash } from 'node:crypto';
import { describeValue } from '../../model/describeValue.js';

/**
 * The DNS-SD service type wool advertises a namespace's workers under:
 * `_wool-` + the first 6 hex digits of MD5(UTF-8 namespace) + `._tcp.local.`.
 *
 * @example
 * lanServiceType('my-pool'); // '_wool-ad3e53._tcp.local.'
 *
 * @param namespace The namespace.
 * @returns The fully qualified service type, with its trailing dot.
 * @throws {TypeError} When `namespace` is not a string.
 */
export function lanServiceType(namespace: string): string {
  if (typeof namespace !== 'string') {
    throw new TypeError(`lanServiceType: namespace must be a string, got ${describeValue(namespace)}`);
  }
  const digest = createHash('md5').update(namespace, 'utf8').digest('hex');
  return `_wool-${digest.slice(0, 6)}._tcp.local.`;
}
