// Child process: subscribes, waits for `count` events, unsubscribes, and
// then does nothing: it must exit on its own (no watch, timer or connection
// left behind). With publish = 'yes' it first publishes one worker (which
// it then sees) and closes its publisher after unsubscribing.
// argv: endpoints (comma-separated), namespace, count, publish ('yes'/'no').
import { randomUUID } from 'node:crypto';
import { etcdDiscovery } from '../../../../src/backends/etcd/index.js';
import { workerInfo } from '../../../../src/model/workerInfo.js';

const [endpoints = '', namespace = '', count = '1', publish = 'no'] = process.argv.slice(2);
const discovery = etcdDiscovery(namespace, { endpoints, ttl: 2 });
const publisher = publish === 'yes' ? discovery.publisher() : undefined;
if (publisher !== undefined) {
  await publisher.publish(
    'worker-added',
    workerInfo({ uid: randomUUID(), address: '127.0.0.1:1', pid: process.pid, version: '1' }),
  );
  process.stdout.write('published\n');
}
let seen = 0;
const subscription = discovery.events().subscribe((event) => {
  seen++;
  process.stdout.write(`event ${event.type} ${event.worker.uid}\n`);
  if (seen === Number(count)) {
    setImmediate(() => {
      subscription.unsubscribe();
      process.stdout.write('unsubscribed\n');
      void publisher?.close().then(() => process.stdout.write('closed\n'));
    });
  }
});
process.stdout.write('subscribed\n');
