import type { ChannelOptions } from './types.js';

/** wool's default `ChannelOptions`: what a record without options means. */
export const DEFAULT_CHANNEL_OPTIONS: ChannelOptions = Object.freeze({
  maxReceiveMessageLength: 104_857_600,
  maxSendMessageLength: 104_857_600,
  keepaliveTimeMs: 30_000,
  keepaliveTimeoutMs: 30_000,
  keepalivePermitWithoutCalls: true,
  maxPingsWithoutData: 2,
  maxConcurrentStreams: 100,
  compression: 'none',
});
