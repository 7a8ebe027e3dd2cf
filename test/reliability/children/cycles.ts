/**
 * Child of leaks.test.ts (not a test file): subscribes to and unsubscribes
 * from one backend's events() `CYCLES` times, with a few workers
 * registered, and prints one JSON line of what the process held after a
 * warm-up and after each of two windows of `CYCLES` cycles: open file
 * descriptors, active handles, heap after a full GC, etcd's server-side
 * watcher count, the memory registry's watchers. Run
 * with --expose-gc. Usage: cycles.ts <backend> <namespace> <cycles> [etcd endpoint]
 * (lan: inside a network namespace made by the test).
 */
import { readdirSync } from 'node:fs';
import { serverWatchers } from '../serverWatchers.js';
import { firstValueFrom, take, toArray } from 'rxjs';
import { memoryDiscovery } from '../../../src/backends/memory/memoryDiscovery.js';
import { MemoryRegistry } from '../../../src/backends/memory/MemoryRegistry.js';
import type { Discovery } from '../../../src/discovery/types.js';
import { workerInfo } from '../../../src/model/workerInfo.js';

const [backend = 'memory', namespace = 'leaks', cyclesText = '1000', endpoint = ''] = process.argv.slice(2);
const cycles = Number(cyclesText);
const WORKERS = 5;

async function discoveryOf(): Promise<Discovery> {
  switch (backend) {
    case 'memory':
      return memoryDiscovery(namespace);
    case 'local': {
      const { localDiscovery } = await import('../../../src/backends/local/localDiscovery.js');
      return localDiscovery(namespace);
    }
    case 'etcd': {
      const { etcdDiscovery } = await import('../../../src/backends/etcd/etcdDiscovery.js');
      return etcdDiscovery(namespace, { endpoints: endpoint, ttl: 10 });
    }
    case 'lan': {
      const { lanDiscovery } = await import('../../../src/backends/lan/lanDiscovery.js');
      return lanDiscovery(namespace, { advertiseHost: '127.0.0.1' });
    }
    default:
      throw new Error(`unknown backend ${backend}`);
  }
}

/** Open descriptors, once the count has been the same twice 100 ms apart (sockets closing in the background). */
async function settledFds(): Promise<number> {
  let last = -1;
  for (let i = 0; i < 20; i++) {
    const now = readdirSync('/proc/self/fd').length;
    if (now === last) return now;
    last = now;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return last;
}

/** etcd's server-side watchers and watch streams, or -1 for other backends. */
function etcdWatchers(): Promise<number> {
  return backend === 'etcd' ? serverWatchers(endpoint) : Promise.resolve(-1);
}

async function usage(): Promise<{
  fds: number;
  handles: number;
  heap: number;
  rss: number;
  watchers: number;
  registryWatchers: number;
}> {
  globalThis.gc?.();
  globalThis.gc?.();
  return {
    fds: await settledFds(),
    handles: process.getActiveResourcesInfo().filter((kind) => kind !== 'TTYWrap').length,
    heap: process.memoryUsage().heapUsed,
    rss: process.memoryUsage().rss,
    watchers: await etcdWatchers(),
    registryWatchers: MemoryRegistry.default.watcherCount(namespace),
  };
}

const discovery = await discoveryOf();
const publisher = discovery.publisher();
for (let n = 1; n <= WORKERS; n++) {
  await publisher.publish(
    'worker-added',
    workerInfo({
      uid: `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`,
      address: `127.0.0.1:${7000 + n}`,
      pid: process.pid,
      version: '1',
    }),
  );
}
// Most cycles subscribe then unsubscribe after 0-5 ms (while connecting or
// reading); every `waitEvery`-th waits for the initial state first (LAN's
// take ~100 ms, so it waits less often).
const waitEvery = backend === 'lan' ? 10 : 2;
let count = 0;
const cycle = async (): Promise<unknown> => {
  count++;
  if (count % waitEvery === 0) return firstValueFrom(discovery.events().pipe(take(WORKERS), toArray()));
  const subscription = discovery.events().subscribe();
  await new Promise((resolve) => setTimeout(resolve, count % 6));
  subscription.unsubscribe();
  return undefined;
};
const run = async (n: number): Promise<void> => {
  for (let i = 0; i < n; i++) await cycle();
  await new Promise((resolve) => setTimeout(resolve, 500));
};
// Warm-up (connections, JIT, lazily made pools), then two measured windows:
// a per-cycle leak grows the second window as much as the first; a warm-up
// plateau does not.
await run(200);
const start = await usage();
// When the measured windows start and end, on the clock of a --trace-gc-nvp
// trace (ms since V8 started; its lines may come out of order with ours:
// libc buffers them): leaks.test.ts counts the collections between.
const v8Clock = (): string => (performance.now() - performance.nodeTiming.v8Start).toFixed(0);
process.stdout.write(`# measured windows from ${v8Clock()} ms\n`);
await run(cycles);
const middle = await usage();
await run(cycles);
process.stdout.write(`# measured windows to ${v8Clock()} ms\n`);
const end = await usage();
process.stdout.write(`${JSON.stringify({ backend, cycles, start, middle, end })}\n`);
await publisher.close();
process.exit(0);
