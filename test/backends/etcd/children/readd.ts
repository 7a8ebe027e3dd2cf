// Child process: re-announces (worker-added) a worker another process
// registered, prints "readded", then either closes its publisher and exits
// ('close') or stays, its lease kept alive, until killed ('stay').
// argv: endpoints (comma-separated), namespace, ttl (s), worker (JSON), mode.
import { etcdDiscovery } from '../../../../src/backends/etcd/index.js';
import type { WorkerInfoInit } from '../../../../src/model/types.js';
import { workerInfo } from '../../../../src/model/workerInfo.js';

const [endpoints = '', namespace = '', ttl = '2', worker = '{}', mode = 'close'] = process.argv.slice(2);
const publisher = etcdDiscovery(namespace, { endpoints, ttl: Number(ttl) }).publisher();
await publisher.publish('worker-added', workerInfo(JSON.parse(worker) as WorkerInfoInit));
process.stdout.write('readded\n');
if (mode === 'close') await publisher.close();
else setInterval(() => undefined, 60_000);
