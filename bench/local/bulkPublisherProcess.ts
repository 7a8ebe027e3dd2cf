// Bench child: publishes `count` workers one after another, each publish
// awaited before the next (no pause between them), when told to run.
// argv[2]: namespace, argv[3]: workers to publish, argv[4]: capacity.
// Talks to the parent over IPC: `ready`, then `{ op: 'run' }` → `published`
// (the CLOCK_MONOTONIC time the last publish resolved), `{ op: 'stop' }`.
import { randomUUID } from 'node:crypto';
import { localDiscovery } from '../../src/backends/local/index.js';
import { workerInfo } from '../../src/model/workerInfo.js';

const [namespace = '', countArg = '0', capacityArg = '0'] = process.argv.slice(2);
const count = Number(countArg);
const publisher = localDiscovery(namespace, { capacity: Number(capacityArg), pollInterval: false }).publisher();

process.on('message', (message: { op: string }) => {
  void (async () => {
    if (message.op === 'run') {
      for (let i = 0; i < count; i += 1) {
        await publisher.publish(
          'worker-added',
          workerInfo({
            uid: randomUUID(),
            address: `127.0.0.1:${10_000 + (i % 50_000)}`,
            pid: process.pid,
            version: '1.0.0',
            tags: ['bench'],
          }),
        );
      }
      process.send?.({ published: process.hrtime.bigint().toString() });
    } else if (message.op === 'stop') {
      await publisher.close();
      process.send?.({ stopped: true });
      process.disconnect();
    }
  })();
});
(globalThis as { gc?: () => void }).gc?.();
process.send?.({ ready: true });
