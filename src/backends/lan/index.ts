/**
 * `woolrx/lan`: worker discovery on the local network over mDNS / DNS-SD,
 * wire-compatible with wool's LAN discovery. Node only.
 * @packageDocumentation
 */
export { lanDiscovery } from './lanDiscovery.js';
export { lanServiceType } from './lanServiceType.js';
export type { AdvertiseHost, LanDiscoveryOptions, LanSigningKey } from './types.js';
export { AdvertiseHostError } from './AdvertiseHostError.js';
export { LanNameConflictError } from './LanNameConflictError.js';
export { LanSocketError } from './LanSocketError.js';
export { TxtEntryTooLongError } from './TxtEntryTooLongError.js';
