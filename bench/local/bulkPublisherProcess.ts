// Bench child: publishes `count` workers one after another, each publish
// awaited before the next (no pause between them), when told to run.
// argv[2]: namespace, argv[3]: workers to publish, argv[4]: capacity,
// argv[5]: untimed workers to publish and withdraw first (default 0; at
// most argv[3] registered at a time) — as the bulk floor's bare publishers
// make untimed adds first (bulk.ts), so that the timed phase starts with the
// namespace made, the flock addon loaded and the code run before.
// Talks to the parent over IPC: `ready`, then `{ op: 'run' }` → `published`
// (the CLOCK_MONOTONIC time the last publish resolved) with the CPU the run
// used (`cpu_us`: every thread; `main_us`: the main thread's), `{ op: 'stop' }`.
// A run may name its workers: `{ op: 'run', from, count }` publishes workers
// `from` to `from + count - 1` (by default 0 to argv[3] - 1), so that a
// namespace can grow in steps.
import { localDiscovery } from '../../src/backends/local/index.js';
import { benchWorker } from './benchWorker.js';
import { threadCpuUs } from './threadCpuUs.js';

const [namespace = '', countArg = '0', capacityArg = '0', warmupArg = '0'] = process.argv.slice(2);
const count = Number(countArg);
const publisher = localDiscovery(namespace, { capacity: Number(capacityArg), pollInterval: false }).publisher();

process.on('message', (message: { op: string; from?: number; count?: number }) => {
  void (async () => {
    if (message.op === 'run') {
      const from = message.from ?? 0;
      const end = from + (message.count ?? count);
      const cpu = process.cpuUsage();
      const main = threadCpuUs();
      for (let i = from; i < end; i += 1) await publisher.publish('worker-added', benchWorker(i));
      const used = process.cpuUsage(cpu);
      process.send?.({
        published: process.hrtime.bigint().toString(),
        cpu_us: used.user + used.system,
        main_us: threadCpuUs() - main,
      });
    } else if (message.op === 'stop') {
      await publisher.close();
      process.send?.({ stopped: true });
      process.disconnect();
    }
  })();
});
void (async () => {
  // In batches of at most `count` registered at a time: the namespace's
  // capacity is the timed phase's workers, and its slot table stays that size.
  for (let left = Number(warmupArg); left > 0; left -= count) {
    const warm = Array.from({ length: Math.min(left, count) }, (_, i) => benchWorker(i));
    for (const worker of warm) await publisher.publish('worker-added', worker);
    for (const worker of warm) await publisher.publish('worker-dropped', worker);
  }
  (globalThis as { gc?: () => void }).gc?.();
  process.send?.({ ready: true });
})();
