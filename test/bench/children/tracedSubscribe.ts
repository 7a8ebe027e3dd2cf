// Test child (test/bench/bareFloor.test.ts, run under strace): a woolrx
// subscriber of `namespace` that has a lone-add publisher child
// (addOnCommand.ts) add `warmup` workers, one at a time, each seen before
// the next; then, between stats of `<markers>/trace-start` and
// `<markers>/trace-end`, `count` more, each after a stat of
// `<markers>/trace-event`: the subscriber's system calls from the add to
// the quiet after its event (missing files: markers in the trace).
// argv[2]: namespace, argv[3]: markers directory, argv[4]: count, argv[5]: warm-up adds.
import { fork } from 'node:child_process';
import { statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { localDiscovery } from '../../../src/backends/local/index.js';

const [namespace = '', markers = '', countArg = '1', warmupArg = '5'] = process.argv.slice(2);
const count = Number(countArg);
const warmup = Number(warmupArg);
const capacity = count + warmup;
const publisher = fork(
  join(dirname(fileURLToPath(import.meta.url)), 'addOnCommand.ts'),
  [namespace, String(capacity)],
  {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  },
);
const message = (key: string): Promise<void> =>
  new Promise((resolve) => publisher.once('message', (m: Record<string, unknown>) => key in m && resolve()));
await message('ready');
let seen = 0;
let waiter: (() => void) | undefined;
const subscription = localDiscovery(namespace, { capacity, pollInterval: false })
  .events()
  .subscribe((event) => {
    if (event.type !== 'worker-added') return;
    seen += 1;
    waiter?.();
  });
/** Has the publisher add one worker, and waits until it is seen and the subscriber is quiet again. */
async function addOne(): Promise<void> {
  const arrived = new Promise<void>((resolve) => (waiter = resolve));
  publisher.send({ op: 'add' });
  await arrived;
  await message('added');
  await sleep(20);
}
for (let i = 0; i < warmup; i += 1) await addOne();
statSync(join(markers, 'trace-start'), { throwIfNoEntry: false });
for (let i = 0; i < count; i += 1) {
  statSync(join(markers, 'trace-event'), { throwIfNoEntry: false });
  await addOne();
}
statSync(join(markers, 'trace-end'), { throwIfNoEntry: false });
subscription.unsubscribe();
publisher.send({ op: 'stop' });
await new Promise((resolve) => publisher.once('exit', resolve));
if (seen !== warmup + count) throw new Error(`saw ${seen} of ${warmup + count} workers`);
