/**
 * LAN bench publisher (run by bench/lan/bench.ts inside a network
 * namespace, never directly): `<namespace> <workers> <probe> <host> <intervalMs>`.
 * Publishes one warm-up worker (opens the socket), then one worker every
 * `intervalMs` without waiting for the previous one, printing
 * `{"uid":…,"t":"<CLOCK_MONOTONIC ns>"}` just before each publish and
 * `{"done":true}` once all are announced. Closes and exits when stdin closes.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { lanDiscovery } from '../../src/backends/lan/lanDiscovery.js';
import { workerInfo } from '../../src/model/workerInfo.js';

const [namespace = 'bench', workersText = '100', probeText = 'false', host = '127.0.0.1', intervalText = '10'] =
  process.argv.slice(2);
const workers = Number(workersText);
const interval = Number(intervalText);
const publisher = lanDiscovery(namespace, { probe: probeText === 'true', advertiseHost: host }).publisher();
const make = (i: number) =>
  workerInfo({
    uid: randomUUID(),
    address: `${host}:${10_000 + i}`,
    pid: process.pid,
    version: '1.0.0',
    tags: ['bench'],
  });

await publisher.publish('worker-added', make(0));
process.stdout.write(`${JSON.stringify({ warm: true })}\n`);
const pending: Promise<void>[] = [];
for (let i = 1; i <= workers; i++) {
  const worker = make(i);
  process.stdout.write(`${JSON.stringify({ uid: worker.uid, t: String(process.hrtime.bigint()) })}\n`);
  pending.push(publisher.publish('worker-added', worker));
  await sleep(interval);
}
await Promise.all(pending);
process.stdout.write(`${JSON.stringify({ done: true })}\n`);
process.stdin.on('end', () => void publisher.close());
process.stdin.resume();
