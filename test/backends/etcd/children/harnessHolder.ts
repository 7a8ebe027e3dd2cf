// Child process: starts an etcd with the harness, prints its pid and data
// directory as one JSON line, then — per argv[2] — waits to be signalled
// ('wait'), throws an uncaught exception ('throw'), or exits ('exit').
import { startEtcd } from '../etcdHarness.js';

const mode = process.argv[2] ?? 'wait';
const etcd = await startEtcd();
const member = etcd.members[0];
process.stdout.write(`${JSON.stringify({ pid: member?.pid, dataDir: member?.dataDir })}\n`);
if (mode === 'throw') {
  setTimeout(() => {
    throw new Error('a test blew up');
  }, 50);
} else if (mode === 'exit') {
  setTimeout(() => process.exit(3), 50);
} else {
  setInterval(() => undefined, 1000);
}
