// Child process: a localDiscovery publisher driven over IPC.
// argv[2]: namespace, argv[3]: JSON options.
// Requests: {op:'publish', type, worker}, {op:'run', workers:[{type, worker}]} (in order),
// {op:'close'}, {op:'exit'} (closes, then lets the process end).
import { localDiscovery } from '../../../../src/backends/local/index.js';
import type { DiscoveryEventType } from '../../../../src/events/types.js';
import type { WorkerInfo } from '../../../../src/model/types.js';

const [namespace = '', options = '{}'] = process.argv.slice(2);
const discovery = localDiscovery(namespace, JSON.parse(options) as object);
const publisher = discovery.publisher();

interface Request {
  id: number;
  op: 'publish' | 'run' | 'close' | 'exit';
  type?: DiscoveryEventType;
  worker?: WorkerInfo;
  workers?: { type: DiscoveryEventType; worker: WorkerInfo }[];
}

function describe(error: unknown): Record<string, unknown> {
  const e = error as Record<string, unknown> & Error;
  return { name: e.name, message: e.message, code: e['code'], capacity: e['capacity'], size: e['size'], uid: e['uid'] };
}

process.on('message', (message: Request) => {
  void (async () => {
    try {
      if (message.op === 'publish') {
        await publisher.publish(message.type as DiscoveryEventType, message.worker as WorkerInfo);
      } else if (message.op === 'run') {
        for (const { type, worker } of message.workers ?? []) await publisher.publish(type, worker);
      } else if (message.op === 'close') {
        await publisher.close();
      } else if (message.op === 'exit') {
        await publisher.close();
        process.send?.({ id: message.id, ok: true });
        process.disconnect();
        return;
      }
      process.send?.({ id: message.id, ok: true, value: process.pid });
    } catch (error) {
      process.send?.({ id: message.id, ok: false, error: describe(error) });
    }
  })();
});
process.send?.({ ready: true });
