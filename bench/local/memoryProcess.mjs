// Bench child: the resident memory of a local subscriber holding every
// worker of a namespace. Plain Node.js, loading the built package (no
// TypeScript loader, whose own thread weighs more than what is measured):
// argv[2] is the built dist/local/index.js, argv[3] the namespace, argv[4]
// how many workers are registered there. After a full GC it notes its RSS,
// then subscribes, has every worker once the initial burst is over (the
// subscription is synced), collects again and notes its RSS and heap, and
// its live memory (V8 heap used plus buffers) and the pages of V8's young
// generation before and after.
// argv[5] (optional): how many workers the namespace grows by after that.
// The child then stays subscribed, and once it has been told of them too
// (the parent has them published), collects again and notes the same
// figures as `grown`: what the subscriber's warm code keeps for more workers.
import { clearTimeout, setTimeout } from 'node:timers';
import { setTimeout as sleep } from 'node:timers/promises';
import { youngGeneration } from './settledMemory.mjs';

const [entry = '', namespace = '', countArg = '0', moreArg = '0'] = process.argv.slice(2);
const expected = Number(countArg);
const more = Number(moreArg);
const gc = () => globalThis.gc?.();
const settle = () => sleep(200);
/** How long the namespace may take to grow by `more` workers before the child gives up. */
const GROW_LIMIT_MS = 120_000;

const { localDiscovery } = await import(entry);
const discovery = localDiscovery(namespace, { capacity: expected + more });
gc();
await settle();
const before = process.memoryUsage();
const beforeYoung = youngGeneration();
let seen = 0;
let grown = () => undefined;
const subscription = discovery.events().subscribe((event) => {
  if (event.type === 'worker-added') seen += 1;
  if (seen === expected + more && more > 0) grown();
});
if (seen !== expected) throw new Error(`saw ${seen} of ${expected} workers at sync`);
const figures = async () => {
  gc();
  await settle();
  gc();
  const usage = process.memoryUsage();
  return { usage, young: youngGeneration() };
};
const after = await figures();
process.send?.({
  memory: {
    before_rss: before.rss,
    rss: after.usage.rss,
    heap_used: after.usage.heapUsed,
    external: after.usage.external,
    before_live: before.heapUsed + before.arrayBuffers,
    live: after.usage.heapUsed + after.usage.arrayBuffers,
    before_young: beforeYoung,
    young: after.young,
  },
});
if (more > 0) {
  await new Promise((resolve, reject) => {
    const limit = setTimeout(
      () => reject(new Error(`saw ${seen} of ${expected + more} workers ${GROW_LIMIT_MS} ms after sync`)),
      GROW_LIMIT_MS,
    );
    grown = () => {
      clearTimeout(limit);
      resolve(undefined);
    };
    if (seen === expected + more) grown();
  });
  const last = await figures();
  process.send?.({
    grown: {
      rss: last.usage.rss,
      live: last.usage.heapUsed + last.usage.arrayBuffers,
      young: last.young,
    },
  });
}
subscription.unsubscribe();
process.disconnect();
