// Bench child: the platform's floor under the local backend's add → event
// path — one positioned write to a file in /dev/shm in one process, seen
// through fs.watch in another — with nothing of woolrx in between.
// argv[2]: 'writer' | 'watcher', argv[3]: the file, argv[4]: timed writes,
// argv[5]: untimed warm-up writes first. The writer writes a sequence number
// every millisecond (CLOCK_MONOTONIC noted just before each write); the
// watcher notes the same clock when an event shows a new number (a number
// skipped over arrived with the one that showed), and its CPU per write.
import { openSync, readSync, watch, writeSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

const [role = '', path = '', countArg = '0', warmupArg = '0'] = process.argv.slice(2);
const count = Number(countArg);
const warmup = Number(warmupArg);
const buffer = Buffer.alloc(4);
const gc = (): void => (globalThis as { gc?: () => void }).gc?.();

if (role === 'writer') {
  const fd = openSync(path, 'r+');
  process.on('message', (message: { op: string }) => {
    if (message.op !== 'run') return;
    void (async () => {
      const starts: string[] = [];
      for (let seq = 1; seq <= warmup + count; seq += 1) {
        if (seq === warmup + 1) {
          gc();
          await sleep(50);
        }
        const start = process.hrtime.bigint();
        buffer.writeUInt32LE(seq, 0);
        writeSync(fd, buffer, 0, 4, 0);
        if (seq > warmup) starts.push(start.toString());
        await sleep(1);
      }
      process.send?.({ starts });
      process.disconnect();
    })();
  });
} else {
  const fd = openSync(path, 'r');
  const arrivals: string[] = [];
  let seen = 0;
  // CPU (user + system) of the timed phase: from the GC after the warm-up to the last event.
  let cpu: NodeJS.CpuUsage | undefined;
  const watcher = watch(path, () => {
    const now = process.hrtime.bigint();
    readSync(fd, buffer, 0, 4, 0);
    const seq = buffer.readUInt32LE(0);
    for (; seen < seq; seen += 1) if (seen >= warmup) arrivals.push(now.toString());
    if (seen === warmup && arrivals.length === 0) {
      gc();
      cpu = process.cpuUsage();
    }
    if (seen >= warmup + count) {
      const used = process.cpuUsage(cpu);
      watcher.close();
      process.send?.({ arrivals, cpuUs: used.user + used.system });
      process.disconnect();
    }
  });
}
process.send?.({ ready: true });
