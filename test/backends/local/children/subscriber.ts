// Child process: a localDiscovery subscriber that forwards every event (and
// diagnostic) to the parent over IPC. argv[2]: namespace, argv[3]: JSON options.
// Requests: {op:'stop'} unsubscribes and disconnects (the process must then exit on its own).
import { localDiscovery } from '../../../../src/backends/local/index.js';

const [namespace = '', options = '{}'] = process.argv.slice(2);
const discovery = localDiscovery(namespace, JSON.parse(options) as object);
const diagnostics = discovery.diagnostics.subscribe((d) =>
  process.send?.({ diagnostic: { kind: d.kind, message: d.message, uid: d.uid } }),
);
const subscription = discovery.events().subscribe((event) => process.send?.({ event }));
process.send?.({ ready: true });

process.on('message', (message: { id: number; op: string }) => {
  if (message.op === 'stop') {
    subscription.unsubscribe();
    diagnostics.unsubscribe();
    process.send?.({ id: message.id, ok: true });
    process.disconnect();
  }
});
