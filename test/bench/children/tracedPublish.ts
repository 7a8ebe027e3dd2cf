// Test child (test/bench/bareFloor.test.ts, run under strace): a woolrx
// publisher makes `warmup` adds, then `count` adds between two stats of
// `<markers>/trace-start` and `<markers>/trace-end`, each add after a stat
// of `<markers>/trace-add`, and the turn of the event loop that releases
// the lock and sends the notifications owed between `<markers>/trace-turn`
// and the end (missing files: markers in the trace; the warm-up's lock is
// released before the start), withdraws everything and exits.
// argv[2]: namespace, argv[3]: markers directory, argv[4]: count, argv[5]:
// warm-up adds, argv[6]: a pause before each timed add in ms (default 0:
// a burst; 2: each a lone add, the lock taken afresh and released).
import { randomUUID } from 'node:crypto';
import { statSync } from 'node:fs';
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
import { join } from 'node:path';
import { localDiscovery } from '../../../src/backends/local/index.js';
import { workerInfo } from '../../../src/model/workerInfo.js';

const [namespace = '', markers = '', countArg = '1', warmupArg = '5', gapArg = '0'] = process.argv.slice(2);
const count = Number(countArg);
const warmup = Number(warmupArg);
const gap = Number(gapArg);
const publisher = localDiscovery(namespace, { capacity: count + warmup, pollInterval: false }).publisher();
// The bench's worker shape (bench/local/bulkPublisherProcess.ts).
const worker = (i: number) =>
  workerInfo({
    uid: randomUUID(),
    address: `127.0.0.1:${10_000 + i}`,
    pid: process.pid,
    version: '1.0.0',
    tags: ['bench'],
  });
const timed = Array.from({ length: count }, (_, i) => worker(warmup + i));
for (let i = 0; i < warmup; i += 1) await publisher.publish('worker-added', worker(i));
// The warm-up's lock released and its notifications sent before the trace;
// the timed adds' ones within it.
await nextTurn();
statSync(join(markers, 'trace-start'), { throwIfNoEntry: false });
for (const w of timed) {
  if (gap > 0) await sleep(gap);
  statSync(join(markers, 'trace-add'), { throwIfNoEntry: false });
  await publisher.publish('worker-added', w);
}
statSync(join(markers, 'trace-turn'), { throwIfNoEntry: false });
await nextTurn();
statSync(join(markers, 'trace-end'), { throwIfNoEntry: false });
await publisher.close();
