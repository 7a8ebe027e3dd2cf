// Child process: a localDiscovery subscriber whose application blocks the
// event loop `busy` ms out of every `period` ms (0: idle) — from a timer and
// from its event handler —, forwarding every
// event and diagnostic to the parent over IPC.
// argv[2]: namespace, argv[3]: JSON options, argv[4]: busy ms, argv[5]: period ms.
// Requests: {op:'stop'} unsubscribes and disconnects (the process must then exit on its own).
import { localDiscovery } from '../../../src/backends/local/index.js';

const [namespace = '', options = '{}', busyArg = '0', periodArg = '100'] = process.argv.slice(2);
const busy = Number(busyArg);
const period = Number(periodArg);
const discovery = localDiscovery(namespace, JSON.parse(options) as object);
const diagnostics = discovery.diagnostics.subscribe((d) =>
  process.send?.({ diagnostic: { kind: d.kind, message: d.message, uid: d.uid } }),
);
/** The application's work: the event loop blocked `busy` ms, at most once per `period`. */
let lastBusy = Date.now();
function work(): void {
  if (busy <= 0 || Date.now() - lastBusy < period) return;
  lastBusy = Date.now();
  while (Date.now() - lastBusy < busy) {
    // Blocked.
  }
}
// Busy both from a timer and while handling an event (then inside woolrx's scan).
const subscription = discovery.events().subscribe((event) => {
  process.send?.({ event });
  work();
});
const timer = busy > 0 ? setInterval(work, period) : undefined;
process.send?.({ ready: true });

process.on('message', (message: { id: number; op: string }) => {
  if (message.op === 'stop') {
    clearInterval(timer);
    subscription.unsubscribe();
    diagnostics.unsubscribe();
    process.send?.({ id: message.id, ok: true });
    process.disconnect();
  }
});
