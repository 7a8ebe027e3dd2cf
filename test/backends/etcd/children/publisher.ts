// Child process: publishes workers to etcd, prints their uids as one JSON
// line, then stays (its lease kept alive) until killed.
// argv: endpoints (comma-separated), namespace, ttl (s), count.
import { randomUUID } from 'node:crypto';
import { etcdDiscovery } from '../../../../src/backends/etcd/index.js';
import { workerInfo } from '../../../../src/model/workerInfo.js';

const [endpoints = '', namespace = '', ttl = '2', count = '3'] = process.argv.slice(2);
const publisher = etcdDiscovery(namespace, { endpoints, ttl: Number(ttl) }).publisher();
const uids: string[] = [];
for (let i = 0; i < Number(count); i++) {
  const worker = workerInfo({ uid: randomUUID(), address: `127.0.0.1:${40000 + i}`, pid: process.pid, version: '1' });
  await publisher.publish('worker-added', worker);
  uids.push(worker.uid);
}
process.stdout.write(`${JSON.stringify(uids)}\n`);
