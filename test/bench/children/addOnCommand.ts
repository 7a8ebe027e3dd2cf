// Test child (test/bench/bareFloor.test.ts): a woolrx publisher that adds
// one worker of the bench's shape per `{ op: 'add' }` message, paced by
// its parent (so each is a lone add), answers `added`, and on
// `{ op: 'stop' }` withdraws everything and exits. argv[2]: namespace,
// argv[3]: capacity.
import { randomUUID } from 'node:crypto';
import { localDiscovery } from '../../../src/backends/local/index.js';
import { workerInfo } from '../../../src/model/workerInfo.js';

const [namespace = '', capacityArg = '16'] = process.argv.slice(2);
const publisher = localDiscovery(namespace, { capacity: Number(capacityArg), pollInterval: false }).publisher();
let i = 0;
process.on('message', (message: { op: string }) => {
  void (async () => {
    if (message.op === 'add') {
      i += 1;
      await publisher.publish(
        'worker-added',
        workerInfo({
          uid: randomUUID(),
          address: `127.0.0.1:${10_000 + i}`,
          pid: process.pid,
          version: '1.0.0',
          tags: ['bench'],
        }),
      );
      process.send?.({ added: true });
    } else if (message.op === 'stop') {
      await publisher.close();
      process.disconnect();
    }
  })();
});
process.send?.({ ready: true });
