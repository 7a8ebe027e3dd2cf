import { WorkerDecodeError } from '../errors/WorkerDecodeError.js';
import { AsciiReader } from './AsciiReader.js';
import { DEFAULT_CHANNEL_OPTIONS } from '../model/DEFAULT_CHANNEL_OPTIONS.js';
import type { ChannelOptions, Compression, WorkerInfo } from '../model/types.js';
import { canonicalTags } from '../model/canonicalTags.js';
import { ownedWorkerInfo } from '../model/ownedWorkerInfo.js';
import { workerInfo } from '../model/workerInfo.js';
import { woolrx } from './generated/woolrx.js';

const COMPRESSIONS: readonly Compression[] = ['none', 'deflate', 'gzip'];

/** The `extra` of every decoded worker that has none. */
const NO_EXTRA: Record<string, string> = Object.freeze({});

/**
 * An exact-size copy of the decoder's tags (its array grew by pushes), each
 * tag shared when `share` is given; an equal list `shareTags` holds when
 * they are canonical (frozen first: the list may be held and handed to other
 * workers).
 */
function sharedTags(tags: string[], share: StringShare | undefined, shareTags: TagsShare | undefined): string[] {
  const copy = tags.slice();
  if (share !== undefined) for (let i = 0; i < copy.length; i += 1) copy[i] = share(copy[i] as string);
  return shareTags !== undefined && canonicalTags(copy) ? shareTags(Object.freeze(copy) as string[]) : copy;
}

function hasKeys(object: object): boolean {
  for (const _ in object) return true;
  return false;
}

function toOptions(connection: woolrx.ChannelOptions | null | undefined): ChannelOptions | undefined {
  // wool always writes `connection`; a message without it means the defaults.
  // Inside it, proto3 rules: an absent field is zero / false.
  if (connection == null) return undefined;
  const code = connection.compression;
  const d = DEFAULT_CHANNEL_OPTIONS;
  if (
    code === 0 &&
    connection.maxReceiveMessageLength === d.maxReceiveMessageLength &&
    connection.maxSendMessageLength === d.maxSendMessageLength &&
    connection.keepaliveTimeMs === d.keepaliveTimeMs &&
    connection.keepaliveTimeoutMs === d.keepaliveTimeoutMs &&
    connection.keepalivePermitWithoutCalls === d.keepalivePermitWithoutCalls &&
    connection.maxPingsWithoutData === d.maxPingsWithoutData &&
    connection.maxConcurrentStreams === d.maxConcurrentStreams
  ) {
    // The usual case: workerInfo() then shares the frozen defaults (no allocation).
    return undefined;
  }
  return {
    maxReceiveMessageLength: connection.maxReceiveMessageLength,
    maxSendMessageLength: connection.maxSendMessageLength,
    keepaliveTimeMs: connection.keepaliveTimeMs,
    keepaliveTimeoutMs: connection.keepaliveTimeoutMs,
    keepalivePermitWithoutCalls: connection.keepalivePermitWithoutCalls,
    maxPingsWithoutData: connection.maxPingsWithoutData,
    maxConcurrentStreams: connection.maxConcurrentStreams,
    // An unknown code is passed on as is: workerInfo() rejects it, naming it.
    compression: COMPRESSIONS[code] ?? (code as unknown as Compression),
  };
}

/**
 * Decodes wool's `WorkerMetadata` protobuf message into a validated, frozen
 * {@link WorkerInfo}.
 *
 * Uses the static code generated from `proto/woolrx.proto` (no reflection,
 * no `new Function`: safe under a strict Content-Security-Policy; see
 * `docs/codec.md` for the measurements). Strings are checked to be valid
 * UTF-8. A message without `connection` gets {@link DEFAULT_CHANNEL_OPTIONS}.
 * Unknown fields are skipped. Never returns a half-filled worker: anything
 * malformed throws.
 *
 * @example
 * try {
 *   const worker = decodeWorker(bytes);
 * } catch (error) {
 *   if (error instanceof WorkerDecodeError) report(error); // skip the record
 *   else throw error;
 * }
 *
 * @param bytes The message bytes (a `Uint8Array`; a Node `Buffer` works too).
 * @returns The worker.
 * @throws {WorkerDecodeError} When the bytes are not a protobuf message
 * (truncated, bad wire type, invalid UTF-8) or describe an invalid worker
 * (bad uid, negative pid, unknown compression, ...); `cause` holds the
 * underlying error.
 */
export function decodeWorker(bytes: Uint8Array): WorkerInfo {
  return decodeWorkerSharing(bytes, undefined, undefined);
}

/**
 * Hands back, for a string just decoded, an equal string already held (or
 * the same one): see {@link decodeWorkerSharing}.
 * @internal
 */
export type StringShare = (value: string) => string;

/**
 * Hands back, for a worker's tags just decoded (frozen, canonical: sorted,
 * without duplicates, each tag already shared), an equal list already held,
 * or the same one (which it may hold): see {@link decodeWorkerSharing}.
 * @internal
 */
export type TagsShare = (tags: string[]) => string[];

/**
 * {@link decodeWorker} for a reader that keeps many workers: the worker
 * shares strings it already holds instead of a fresh copy of each. A
 * subscriber knows a worker's uid before it decodes its record (from the
 * slot table or the journal), and most workers of a pool carry the same
 * version and tags.
 * @example
 * const worker = decodeWorkerSharing(bytes, entry.uid, share);
 * @param knownUid The uid the record should hold: used as the worker's when equal.
 * @param share Gives the version and each tag.
 * @param shareTags Gives the whole list of tags, when canonical (workers
 * that carry the same tags then share one frozen array).
 * @internal
 */
export function decodeWorkerSharing(
  bytes: Uint8Array,
  knownUid: string | undefined,
  share: StringShare | undefined,
  shareTags?: TagsShare,
): WorkerInfo {
  if (!(bytes instanceof Uint8Array)) {
    throw new WorkerDecodeError(
      `Cannot decode worker metadata from ${Object.prototype.toString.call(bytes)}: expected a Uint8Array`,
    );
  }
  let message: woolrx.WorkerMetadata;
  try {
    message = woolrx.WorkerMetadata.decode(new AsciiReader(bytes));
  } catch (cause) {
    throw new WorkerDecodeError(
      `Malformed worker metadata (${bytes.length} bytes): ${cause instanceof Error ? cause.message : String(cause)}`,
      { cause },
    );
  }
  try {
    // decode() builds sub-messages as ChannelOptions instances (zero defaults on the prototype).
    const options = toOptions(message.connection as woolrx.ChannelOptions | null | undefined);
    const fields = {
      uid: message.uid === knownUid ? knownUid : message.uid,
      address: message.address,
      pid: message.pid,
      version: share === undefined ? message.version : share(message.version),
      // Fresh for each message: given up to the worker. A subscriber keeps
      // every worker it knows, so what they hold counts: the
      // decoder's array grew by pushes (room for 17 tags after the first),
      // so a tagged worker keeps an exact-size copy, and a worker without
      // extra shares one frozen empty object instead of an empty one each.
      tags: message.tags.length === 0 ? message.tags : sharedTags(message.tags, share, shareTags),
      extra: hasKeys(message.extra) ? message.extra : NO_EXTRA,
      secure: message.secure,
    };
    if (options === undefined) return ownedWorkerInfo(fields);
    const { uid, address, pid, version, tags, extra, secure } = fields;
    return workerInfo({ uid, address, pid, version, tags, extra, secure, options });
  } catch (cause) {
    throw new WorkerDecodeError(`Invalid worker metadata: ${cause instanceof Error ? cause.message : String(cause)}`, {
      cause,
    });
  }
}
