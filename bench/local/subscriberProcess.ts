// Bench child: subscribes to the namespace and records, per worker uid, the
// CLOCK_MONOTONIC time (process.hrtime) its worker-added event arrived.
// argv[2]: namespace, argv[3]: expected workers, argv[4]: warm-up workers
// to see come and go first (not recorded). Talks to the parent over IPC.
import { localDiscovery } from '../../src/backends/local/index.js';
import { emptyYoungGeneration } from './emptyYoungGeneration.js';
import { gcCounter } from './gcCounter.js';

const [namespace = '', countArg = '0', warmupArg = '0'] = process.argv.slice(2);
const expected = Number(countArg);
const warmup = Number(warmupArg);
let warmDrops = 0;
const arrivals = new Map<string, bigint>();
let cpuStart: NodeJS.CpuUsage | undefined;
let cpuAtEnd: NodeJS.CpuUsage | undefined;
const gcs = gcCounter();

const subscription = localDiscovery(namespace, { capacity: expected })
  .events()
  .subscribe((event) => {
    if (warmDrops < warmup) {
      if (event.type === 'worker-dropped' && ++warmDrops === warmup) process.send?.({ warm: true });
      return;
    }
    if (event.type !== 'worker-added') return;
    arrivals.set(event.worker.uid, process.hrtime.bigint());
    if (arrivals.size === expected) {
      cpuAtEnd = process.cpuUsage(cpuStart);
      gcs.stop();
      process.send?.({ done: true });
    }
  });

// The bench went away without telling it to stop (killed, or failed): leave
// with it. Its subscription would otherwise keep it running for good.
process.once('disconnect', () => subscription.unsubscribe());

process.on('message', (message: { op: string }) => {
  if (message.op === 'start') {
    emptyYoungGeneration();
    cpuStart = process.cpuUsage();
    gcs.start();
    process.send?.({ started: true });
  } else if (message.op === 'report') {
    process.send?.({
      arrivals: [...arrivals].map(([uid, t]) => [uid, t.toString()]),
      cpuUs: cpuAtEnd ? cpuAtEnd.user + cpuAtEnd.system : Number.NaN,
      gcs: gcs.count,
    });
  } else if (message.op === 'stop') {
    subscription.unsubscribe();
    process.disconnect();
  }
});
// Start-up garbage (module loading) is collected now, before the warm-up,
// not between it and the timed phase (see publisherProcess.ts).
(globalThis as { gc?: () => void }).gc?.();
process.send?.({ ready: true });
