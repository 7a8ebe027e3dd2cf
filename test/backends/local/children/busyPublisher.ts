// Child process: publishes as fast as it can until killed — adds (each a new
// block and slot), updates and drops of workers carrying this pid — so that
// a kill lands inside a critical section as often as not.
// argv[2]: namespace. Sends {ready: true} after its first publish.
import { randomUUID } from 'node:crypto';
import { localDiscovery } from '../../../../src/backends/local/index.js';
import { workerInfo } from '../../../../src/model/workerInfo.js';

const [namespace = ''] = process.argv.slice(2);
const publisher = localDiscovery(namespace, { capacity: 256, pollInterval: false, liveness: false }).publisher();
const worker = (uid: string, n: number) =>
  workerInfo({
    uid,
    address: `127.0.0.1:${20_000 + (n % 10_000)}`,
    pid: process.pid,
    version: '1.0.0',
    tags: [`n${n}`],
  });

let ready = false;
const kept: string[] = [];
for (let n = 0; ; n += 1) {
  const uid = randomUUID();
  await publisher.publish('worker-added', worker(uid, n));
  await publisher.publish('worker-updated', worker(uid, n + 1));
  if (n % 2 === 0) await publisher.publish('worker-dropped', worker(uid, n + 1));
  else kept.push(uid);
  if (kept.length > 8) {
    const old = kept.shift() ?? '';
    await publisher.publish('worker-dropped', worker(old, 0));
  }
  if (!ready) {
    ready = true;
    process.send?.({ ready: true });
  }
}
