// Bench child: the floor under the subscriber memory figure (see
// benchLocalMemoryFloor in bulk.ts). Plain Node.js, like memoryProcess.mjs,
// and nothing of woolrx. It notes its RSS (and its live memory: V8 heap used
// plus buffers) after a full GC three times, a fourth with argv[3]: bare;
// with RxJS loaded (woolrx's peer dependency: every subscriber process loads
// it); and holding, besides, `workers` frozen plain objects of
// the workers the subscriber is measured with (the fields a WorkerInfo has,
// one shared options object) in a Map by uid — what any Node.js process
// that knows them pays. Its strings are flat, as a decoder of the wire (JSON,
// protobuf) makes them, and made without garbage a peer would not make:
// `randomUUID()` builds a uid as a rope of 20 short strings on Node.js 20 and
// 24 (about 480 bytes a uid kept, where a flat one takes 56), and a template
// string of 13 characters or more is a rope too. argv[2]: how many workers.
// argv[3] (optional): how many more it then holds, noting its memory again
// as `grown` (the peer of memoryProcess.mjs's argv[5]).
import { Buffer } from 'node:buffer';
import { randomFillSync } from 'node:crypto';
import { settledMemory as settled } from './settledMemory.mjs';

const workers = Number(process.argv[2] ?? '0');
const more = Number(process.argv[3] ?? '0');

const bare = await settled();
await import('rxjs');
const rxjs = await settled();
const options = Object.freeze({ maxReceiveMessageLength: 0, compression: 'none' });
const random = Buffer.alloc(16);
const text = Buffer.alloc(36);
const HEX = Buffer.from('0123456789abcdef', 'latin1');
/** A random version-4 uid, its 36 characters one flat string (see above). */
const uidString = () => {
  randomFillSync(random);
  random[6] = (random[6] & 0x0f) | 0x40;
  random[8] = (random[8] & 0x3f) | 0x80;
  let at = 0;
  for (let i = 0; i < 16; i += 1) {
    if (i === 4 || i === 6 || i === 8 || i === 10) text[at++] = 0x2d;
    text[at++] = HEX[random[i] >> 4];
    text[at++] = HEX[random[i] & 15];
  }
  return text.toString('latin1', 0, 36);
};
/** `127.0.0.1:<port>`, one flat string. */
const addressString = (port) => {
  const end = text.write('127.0.0.1:', 0, 'latin1') + text.write(String(port), 10, 'latin1');
  return text.toString('latin1', 0, end);
};
const held = new Map();
const hold = (from, to) => {
  for (let i = from; i < to; i += 1) {
    const uid = uidString();
    const worker = Object.freeze({
      uid,
      address: addressString(10_000 + (i % 50_000)),
      pid: process.pid,
      version: '1.0.0',
      tags: Object.freeze(['bench']),
      extra: Object.freeze({}),
      secure: false,
      options,
    });
    held.set(uid, worker);
  }
};
hold(0, workers);
const holding = await settled();
hold(workers, workers + more);
const grown = more > 0 ? await settled() : undefined;
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
    ...(grown === undefined ? {} : { grown_rss: grown.rss, grown_live: grown.live, grown_young: grown.young }),
  },
});
process.disconnect();
