// Bench child: registers workers one by one, recording the CLOCK_MONOTONIC
// time just before each publish, paced so that each add is measured on its
// own. argv[2]: namespace, argv[3]: workers, argv[4]: gap between adds in ms.
import { setTimeout as sleep } from 'node:timers/promises';
import { localDiscovery } from '../../src/backends/local/index.js';
import { benchWorker } from './benchWorker.js';
import { emptyYoungGeneration } from './emptyYoungGeneration.js';
import { gcCounter } from './gcCounter.js';

const [namespace = '', countArg = '0', gapArg = '1'] = process.argv.slice(2);
const count = Number(countArg);
const gap = Number(gapArg);
const gcs = gcCounter();
const publisher = localDiscovery(namespace, { capacity: count, pollInterval: false }).publisher();

process.on('message', (message: { op: string; rounds?: number; size?: number }) => {
  void (async () => {
    if (message.op === 'warmup') {
      // Start-up garbage (module loading) is collected now, before the
      // warm-up, not between it and the timed phase: after a forced full GC
      // V8 re-compiled some 20 of the path's functions (--trace-opt) on its
      // background threads, inside the timed phase.
      (globalThis as { gc?: () => void }).gc?.();
      // Untimed: the timed phase's operations on other workers of the same
      // shape — `size` adds one by one, filling the namespace as the timed
      // phase does, then as many drops — `rounds` times, so that the timed
      // phase runs the code V8 optimised for it.
      for (let round = 0; round < (message.rounds ?? 0); round += 1) {
        const workers = [];
        for (let i = 0; i < (message.size ?? 0); i += 1) {
          const worker = benchWorker(i);
          workers.push(worker);
          await publisher.publish('worker-added', worker);
          await sleep(gap);
        }
        for (const worker of workers) {
          await publisher.publish('worker-dropped', worker);
          await sleep(gap);
        }
      }
      process.send?.({ warmed: true });
    } else if (message.op === 'run') {
      const starts: [string, string][] = [];
      emptyYoungGeneration();
      gcs.start();
      for (let i = 0; i < count; i += 1) {
        const worker = benchWorker(i);
        const start = process.hrtime.bigint();
        await publisher.publish('worker-added', worker);
        starts.push([worker.uid, start.toString()]);
        await sleep(gap);
      }
      gcs.stop();
      process.send?.({ starts });
    } else if (message.op === 'gcs') {
      process.send?.({ gcs: gcs.count });
    } else if (message.op === 'stop') {
      await publisher.close();
      process.send?.({ stopped: true });
      process.disconnect();
    }
  })();
});
process.send?.({ ready: true });
