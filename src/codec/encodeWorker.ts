import $protobuf from 'protobufjs/minimal.js';
import { describeValue } from '../model/describeValue.js';
import type { Compression, WorkerInfo } from '../model/types.js';
import { woolrx } from './generated/woolrx.js';

const COMPRESSION_CODES: Readonly<Record<Compression, number>> = { none: 0, deflate: 1, gzip: 2 };

// A lone UTF-16 surrogate has no UTF-8 form: it would be written as U+FFFD
// and come back different, so it is refused rather than silently changed.
const LONE_SURROGATE = /\p{Surrogate}/u;

function checkText(field: string, value: string): void {
  if (LONE_SURROGATE.test(value)) {
    throw new TypeError(
      `Cannot encode worker ${field}: ${describeValue(value)} (lone UTF-16 surrogate, not valid Unicode)`,
    );
  }
}

function checkWorker(worker: WorkerInfo): void {
  checkText('address', worker.address);
  checkText('version', worker.version);
  for (const tag of worker.tags) checkText('tag', tag);
  for (const key of Object.keys(worker.extra)) {
    checkText('extra key', key);
    checkText(`extra[${JSON.stringify(key)}]`, worker.extra[key] ?? '');
  }
}

// One writer reused across calls (encoding is synchronous): its backing
// buffer grows once to the largest message and is then recycled. It is taken
// out while in use, so a throwing or re-entrant call just builds a fresh one.
let spare: $protobuf.Writer | undefined;

/**
 * Encodes a worker as wool's `WorkerMetadata` protobuf message — the bytes a
 * wool process stores in its shared-memory blocks and etcd values.
 *
 * Uses the static code generated from `proto/woolrx.proto` (see
 * `docs/codec.md`: static code is no slower than reflection and, unlike
 * reflection, needs no `new Function`, so it runs under a strict
 * Content-Security-Policy). Like wool, it always writes `connection`
 * (ChannelOptions), and omits proto3 zero values. `extra` is written in
 * sorted key order, so equal workers give equal bytes.
 *
 * @example
 * const bytes = encodeWorker(worker);
 * sameWorker(decodeWorker(bytes), worker); // true
 *
 * @param worker A worker built by {@link workerInfo}.
 * @returns A fresh `Uint8Array` (never a view into a shared pool, so it can be
 * transferred).
 * @throws {TypeError} When a string holds a lone UTF-16 surrogate (it has no
 * UTF-8 form), naming the field.
 */
export function encodeWorker(worker: WorkerInfo): Uint8Array {
  checkWorker(worker);
  const { options } = worker;
  const writer = spare ?? new $protobuf.Writer();
  spare = undefined;
  writer.pos = 0;
  woolrx.WorkerMetadata.encode(
    {
      uid: worker.uid,
      address: worker.address,
      pid: worker.pid,
      version: worker.version,
      tags: worker.tags as string[],
      extra: worker.extra,
      secure: worker.secure,
      connection: {
        maxReceiveMessageLength: options.maxReceiveMessageLength,
        maxSendMessageLength: options.maxSendMessageLength,
        keepaliveTimeMs: options.keepaliveTimeMs,
        keepaliveTimeoutMs: options.keepaliveTimeoutMs,
        keepalivePermitWithoutCalls: options.keepalivePermitWithoutCalls,
        maxPingsWithoutData: options.maxPingsWithoutData,
        maxConcurrentStreams: options.maxConcurrentStreams,
        compression: COMPRESSION_CODES[options.compression],
      },
    },
    writer,
  );
  const bytes = writer.finishInto(new Uint8Array(writer.pos));
  spare = writer;
  return bytes;
}
