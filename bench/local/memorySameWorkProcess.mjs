// Bench child: the same-work floor under the subscriber memory figure (see
// benchLocalMemory in bulk.ts). Plain Node.js, like memoryProcess.mjs. It
// does bare what a subscriber must do to hold a namespace's workers, and
// nothing else: reads the segment's slot table, opens and reads each
// worker's block, decodes its record with woolrx's public `decodeWorker`
// (what any reader of wool's bytes into a WorkerInfo runs: the core entry,
// protobufjs within), keeps the WorkerInfo in a Map by uid, and closes the
// block. No watcher, no journal, no events, no bookkeeping to notice a change
// later. It notes its RSS and live memory (V8 heap used plus buffers) after a
// full GC: with RxJS loaded (the baseline), with the codec loaded too, and
// holding the workers.
// argv[2]: the built dist/index.js, argv[3]: the namespace, argv[4]: how many
// workers are registered there.
import { Buffer } from 'node:buffer';
import { createHash } from 'node:crypto';
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { settledMemory as settled } from './settledMemory.mjs';

const [entry = '', namespace = '', countArg = '0'] = process.argv.slice(2);
const expected = Number(countArg);
// wool's short_hash: the first 30 characters of the URL-safe base64 SHA-256 (docs/backends/local.md).
const shortHash = (value) => createHash('sha256').update(value, 'utf8').digest('base64url').slice(0, 30);
const SEGMENT_MAGIC = 0x31444c57; // 'WLD1'
const HEADER = 16;
const SLOT = 16;
const LENGTH_PREFIX = 4;

await import('rxjs');
const rxjs = await settled();
const { decodeWorker } = await import(entry);
const codec = await settled();

const segment = openSync(`/dev/shm/${shortHash(namespace)}`, constants.O_RDONLY);
const header = Buffer.alloc(HEADER);
readSync(segment, header, 0, HEADER, 0);
if (header.readUInt32LE(0) !== SEGMENT_MAGIC) throw new Error(`segment of ${namespace} has no WLD1 magic`);
const capacity = header.readUInt32LE(4);
const table = Buffer.alloc(SLOT * capacity);
readSync(segment, table, 0, table.length, HEADER);
closeSync(segment);

const held = new Map();
let block = Buffer.alloc(4096);
for (let offset = 0; offset < table.length; offset += SLOT) {
  const hex = table.toString('hex', offset, offset + SLOT);
  if (/^0+$/.test(hex)) continue;
  const fd = openSync(`/dev/shm/${shortHash(hex)}`, constants.O_RDONLY);
  try {
    const size = fstatSync(fd).size;
    if (block.length < size) block = Buffer.alloc(size);
    const read = readSync(fd, block, 0, size, 0);
    const length = block.readUInt32LE(0);
    if (LENGTH_PREFIX + length > read) throw new Error(`block of ${hex}: a ${length}-byte record in ${read} bytes`);
    const worker = decodeWorker(block.subarray(LENGTH_PREFIX, LENGTH_PREFIX + length));
    held.set(worker.uid, worker);
  } finally {
    closeSync(fd);
  }
}
if (held.size !== expected) throw new Error(`read ${held.size} of ${expected} workers`);
const holding = await settled();
process.send?.({
  sameWork: {
    rxjs: rxjs.rss,
    codec: codec.rss,
    holding: holding.rss,
    rxjs_live: rxjs.live,
    holding_live: holding.live,
    rxjs_young: rxjs.young,
    holding_young: holding.young,
    held: held.size,
  },
});
process.disconnect();
