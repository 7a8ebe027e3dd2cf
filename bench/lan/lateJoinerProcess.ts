/**
 * LAN late-joiner bench subscriber (run by bench/lan/lateJoiner.ts inside a
 * network namespace, never directly): `<namespace> <workers> <interface>`.
 * Prints `{"ready":true}`, then on the line `go` on stdin subscribes to
 * `watch()` and prints, once both the synced signal has come and `workers`
 * distinct workers are seen (or 20 s have passed), one line
 * `{"first_ms":…,"all_ms":…,"synced_ms":…,"seen_at_synced":…,"rx_packets":…,"rx_bytes":…,"udp_rcvbuf_errors":…}`:
 * times from the subscribe call, and what this namespace's `interface`
 * received meanwhile (/proc/net/dev, /proc/net/snmp are per network namespace).
 */
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { lanDiscovery } from '../../src/backends/lan/lanDiscovery.js';

const [namespace = 'bench', workersText = '1000', iface = 'lo'] = process.argv.slice(2);
const workers = Number(workersText);

function counters(): { rxPackets: number; rxBytes: number; rcvbufErrors: number } {
  const dev = readFileSync('/proc/net/dev', 'utf8')
    .split('\n')
    .find((line) => line.trim().startsWith(`${iface}:`));
  const fields = dev?.split(':')[1]?.trim().split(/\s+/).map(Number) ?? [];
  const udp = readFileSync('/proc/net/snmp', 'utf8')
    .split('\n')
    .filter((line) => line.startsWith('Udp:'));
  const names = udp[0]?.split(/\s+/) ?? [];
  const values = udp[1]?.split(/\s+/).map(Number) ?? [];
  return {
    rxBytes: fields[0] ?? NaN,
    rxPackets: fields[1] ?? NaN,
    rcvbufErrors: values[names.indexOf('RcvbufErrors')] ?? NaN,
  };
}

const go = (): void => {
  const before = counters();
  const seen = new Set<string>();
  let firstMs: number | undefined;
  let allMs: number | undefined;
  let syncedMs: number | undefined;
  let seenAtSynced = 0;
  const start = performance.now();
  const finish = (): void => {
    const after = counters();
    subscription.unsubscribe();
    clearTimeout(timeout);
    process.stdout.write(
      `${JSON.stringify({
        first_ms: firstMs ?? null,
        all_ms: allMs ?? null,
        synced_ms: syncedMs ?? null,
        seen_at_synced: seenAtSynced,
        seen: seen.size,
        rx_packets: after.rxPackets - before.rxPackets,
        rx_bytes: after.rxBytes - before.rxBytes,
        udp_rcvbuf_errors: after.rcvbufErrors - before.rcvbufErrors,
      })}\n`,
    );
  };
  const timeout = setTimeout(finish, 20_000);
  const subscription = lanDiscovery(namespace)
    .watch()
    .subscribe({
      next: (item) => {
        if (item.type === 'synced') {
          syncedMs = performance.now() - start;
          seenAtSynced = seen.size;
        } else if (item.type === 'worker-added') {
          firstMs ??= performance.now() - start;
          seen.add(item.worker.uid);
          if (seen.size === workers && allMs === undefined) allMs = performance.now() - start;
        }
        if (syncedMs !== undefined && allMs !== undefined) finish();
      },
      error: (error: unknown) => {
        process.stdout.write(`${JSON.stringify({ error: String(error) })}\n`);
        process.exit(1);
      },
    });
};

createInterface({ input: process.stdin }).on('line', (line) => {
  if (line.trim() === 'go') go();
});
process.stdin.on('end', () => process.exit(0));
process.stdout.write(`${JSON.stringify({ ready: true })}\n`);
