/**
 * LAN bench subscriber (run by bench/lan/bench.ts inside a network
 * namespace, never directly): subscribes to `argv[2]` and prints, per
 * `worker-added`, `{"uid":…,"t":"<CLOCK_MONOTONIC ns>"}`. Exits when stdin closes.
 */
import { lanDiscovery } from '../../src/backends/lan/lanDiscovery.js';

const namespace = process.argv[2] ?? 'bench';
const subscription = lanDiscovery(namespace)
  .events()
  .subscribe({
    next: (event) => {
      if (event.type !== 'worker-added') return;
      const t = process.hrtime.bigint();
      process.stdout.write(`${JSON.stringify({ uid: event.worker.uid, t: String(t) })}\n`);
    },
    error: (error: unknown) => {
      process.stdout.write(`${JSON.stringify({ error: String(error) })}\n`);
      process.exit(1);
    },
  });
process.stdin.on('end', () => subscription.unsubscribe());
process.stdin.resume();
process.stdout.write(`${JSON.stringify({ ready: true })}\n`);
