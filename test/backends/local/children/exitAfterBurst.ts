// Child process: registers a worker, then — in one turn of the event loop,
// the lock kept across them — updates it twice more and calls
// process.exit(0) at once. argv[2]: namespace, argv[3]: the worker's uid.
import { setImmediate as nextTurn } from 'node:timers/promises';
import { localDiscovery } from '../../../../src/backends/local/index.js';
import { workerInfo } from '../../../../src/model/workerInfo.js';

const [namespace = '', uid = ''] = process.argv.slice(2);
const publisher = localDiscovery(namespace, { pollInterval: false, liveness: false }).publisher();
const worker = (version: string) => workerInfo({ uid, address: '127.0.0.1:4000', pid: process.pid, version, tags: [] });
await publisher.publish('worker-added', worker('1.0.0'));
await nextTurn();
await publisher.publish('worker-updated', worker('2.0.0'));
await publisher.publish('worker-updated', worker('3.0.0'));
await publisher.publish('worker-updated', worker('4.0.0'));
process.exit(0);
