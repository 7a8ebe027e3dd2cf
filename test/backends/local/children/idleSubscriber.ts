// Child process without IPC: subscribes, waits for the first event (or a
// short while), unsubscribes, then does nothing. It must exit on its own.
// argv[2]: namespace.
import { localDiscovery } from '../../../../src/backends/local/index.js';

const [namespace = ''] = process.argv.slice(2);
const subscription = localDiscovery(namespace, { pollInterval: 50 })
  .events()
  .subscribe((event) => {
    process.stdout.write(`event ${event.type}\n`);
  });
setTimeout(() => {
  subscription.unsubscribe();
  process.stdout.write('unsubscribed\n');
}, 300);
