// Bench child: the floor under the subscriber memory figure (see
// benchLocalMemoryFloor in bulk.ts). Plain Node.js, like memoryProcess.mjs,
// and nothing of woolrx. It notes its RSS after a full GC three times:
// (and its live memory: V8 heap used plus buffers) bare; with RxJS loaded (woolrx's peer dependency: every subscriber
// process loads it); and holding, besides, `workers` frozen plain objects of
// the workers the subscriber is measured with (the fields a WorkerInfo has,
// one shared options object) in a Map by uid — what any Node.js process
// that knows them pays. argv[2]: how many workers.
import { randomUUID } from 'node:crypto';
import { settledMemory as settled } from './settledMemory.mjs';

const workers = Number(process.argv[2] ?? '0');

const bare = await settled();
await import('rxjs');
const rxjs = await settled();
const options = Object.freeze({ maxReceiveMessageLength: 0, compression: 'none' });
const held = new Map();
for (let i = 0; i < workers; i += 1) {
  const uid = randomUUID();
  const worker = Object.freeze({
    uid,
    address: `127.0.0.1:${10_000 + (i % 50_000)}`,
    pid: process.pid,
    version: '1.0.0',
    tags: Object.freeze(['bench']),
    extra: Object.freeze({}),
    secure: false,
    options,
  });
  held.set(uid, worker);
}
const holding = await settled();
process.send?.({
  floor: {
    bare: bare.rss,
    rxjs: rxjs.rss,
    holding: holding.rss,
    rxjs_live: rxjs.live,
    holding_live: holding.live,
    rxjs_young: rxjs.young,
    holding_young: holding.young,
    held: held.size,
  },
});
process.disconnect();
