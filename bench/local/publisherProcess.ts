// Bench child: registers workers one by one, recording the CLOCK_MONOTONIC
// time just before each publish, paced so that each add is measured on its
// own. argv[2]: namespace, argv[3]: workers, argv[4]: gap between adds in ms.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { localDiscovery } from '../../src/backends/local/index.js';
import { workerInfo } from '../../src/model/workerInfo.js';

const [namespace = '', countArg = '0', gapArg = '1'] = process.argv.slice(2);
const count = Number(countArg);
const gap = Number(gapArg);
const publisher = localDiscovery(namespace, { capacity: count, pollInterval: false }).publisher();

process.on('message', (message: { op: string; count?: number }) => {
  void (async () => {
    if (message.op === 'warmup') {
      // Untimed: the same code paths, so that the timed phase runs warm (JIT).
      for (let i = 0; i < (message.count ?? 0); i += 1) {
        const worker = workerInfo({ uid: randomUUID(), address: `127.0.0.1:${9_000 + (i % 1_000)}`, pid: process.pid, version: '0' });
        await publisher.publish('worker-added', worker);
        await sleep(gap);
        await publisher.publish('worker-dropped', worker);
        await sleep(gap);
      }
      process.send?.({ warmed: true });
    } else if (message.op === 'run') {
      // Start-up garbage (module loading) is collected now, not inside the timed phase.
      (globalThis as { gc?: () => void }).gc?.();
      const starts: [string, string][] = [];
      for (let i = 0; i < count; i += 1) {
        const worker = workerInfo({
          uid: randomUUID(),
          address: `127.0.0.1:${10_000 + (i % 50_000)}`,
          pid: process.pid,
          version: '1.0.0',
          tags: ['bench'],
        });
        const start = process.hrtime.bigint();
        await publisher.publish('worker-added', worker);
        starts.push([worker.uid, start.toString()]);
        await sleep(gap);
      }
      process.send?.({ starts });
    } else if (message.op === 'stop') {
      await publisher.close();
      process.send?.({ stopped: true });
      process.disconnect();
    }
  })();
});
process.send?.({ ready: true });
