// wool's golden values (../shared/wool-vectors.json beside the repo), typed for the codec tests.
import { readFileSync } from 'node:fs';
import type { ChannelOptions, Compression } from '../../src/model/types.js';

export interface MetadataVector {
  uid: string;
  address: string;
  pid: number;
  version: string;
  tags: string[];
  extra: Record<string, string>;
  secure: boolean;
  options: {
    max_receive_message_length: number;
    max_send_message_length: number;
    keepalive_time_ms: number;
    keepalive_timeout_ms: number;
    keepalive_permit_without_calls: boolean;
    max_pings_without_data: number;
    max_concurrent_streams: number;
    compression: number;
  };
  protobuf_hex: string;
  txt: Record<string, string | null>;
}

const COMPRESSIONS: readonly Compression[] = ['none', 'deflate', 'gzip'];

export const vectors = (
  JSON.parse(readFileSync(new URL('../fixtures/wool-vectors.json', import.meta.url), 'utf8')) as {
    metadata: MetadataVector[];
  }
).metadata;

/** The vector's options, in our camelCase ChannelOptions shape. */
export function vectorOptions(vector: MetadataVector): ChannelOptions {
  const o = vector.options;
  const compression = COMPRESSIONS[o.compression];
  if (compression === undefined) throw new Error(`vector compression ${o.compression}`);
  return {
    maxReceiveMessageLength: o.max_receive_message_length,
    maxSendMessageLength: o.max_send_message_length,
    keepaliveTimeMs: o.keepalive_time_ms,
    keepaliveTimeoutMs: o.keepalive_timeout_ms,
    keepalivePermitWithoutCalls: o.keepalive_permit_without_calls,
    maxPingsWithoutData: o.max_pings_without_data,
    maxConcurrentStreams: o.max_concurrent_streams,
    compression,
  };
}

export function fromHex(hex: string): Uint8Array {
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = Number.parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return bytes;
}

export function toHex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}
