/**
 * `woolrx/etcd`: worker discovery over an etcd v3 cluster, with leases so
 * that a crashed publisher's workers expire. Node only.
 * @packageDocumentation
 */
export { etcdDiscovery } from './etcdDiscovery.js';
export type { EtcdAuthOptions, EtcdDiscoveryOptions, EtcdTlsOptions } from './types.js';
export { EtcdUnavailableError } from './EtcdUnavailableError.js';
