// Bench child: the resident memory of a local subscriber holding every
// worker of a namespace. Plain Node.js, loading the built package (no
// TypeScript loader, whose own thread weighs more than what is measured):
// argv[2] is the built dist/local/index.js, argv[3] the namespace, argv[4]
// how many workers are registered there. After a full GC it notes its RSS,
// then subscribes, has every worker once the initial burst is over (the
// subscription is synced), collects again and notes its RSS and heap, and
// its live memory (V8 heap used plus buffers) and the pages of V8's young
// generation before and after.
import { setTimeout as sleep } from 'node:timers/promises';
import { youngGeneration } from './settledMemory.mjs';

const [entry = '', namespace = '', countArg = '0'] = process.argv.slice(2);
const expected = Number(countArg);
const gc = () => globalThis.gc?.();
const settle = () => sleep(200);

const { localDiscovery } = await import(entry);
const discovery = localDiscovery(namespace, { capacity: expected });
gc();
await settle();
const before = process.memoryUsage();
const beforeYoung = youngGeneration();
let seen = 0;
const subscription = discovery.events().subscribe((event) => {
  if (event.type === 'worker-added') seen += 1;
});
if (seen !== expected) throw new Error(`saw ${seen} of ${expected} workers at sync`);
gc();
await settle();
gc();
const after = process.memoryUsage();
const afterYoung = youngGeneration();
process.send?.({
  memory: {
    before_rss: before.rss,
    rss: after.rss,
    heap_used: after.heapUsed,
    external: after.external,
    before_live: before.heapUsed + before.arrayBuffers,
    live: after.heapUsed + after.arrayBuffers,
    before_young: beforeYoung,
    young: afterYoung,
  },
});
subscription.unsubscribe();
process.disconnect();
