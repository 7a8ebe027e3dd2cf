// Child process: takes the namespace lock of the local backend and holds it
// until told to release (or killed). argv[2]: namespace.
import { realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { acquireNamespaceLock } from '../../../../src/backends/local/lock/namespaceLock.js';
import { localNames } from '../../../../src/backends/local/names/localNames.js';

const [namespace = ''] = process.argv.slice(2);
const names = localNames(namespace, realpathSync(tmpdir()));
const release = await acquireNamespaceLock({ ...names, lockTimeout: 5_000 });
// Keep the process alive while holding.
const keepAlive = setInterval(() => undefined, 1_000);
process.send?.({ locked: true });
process.on('message', (message: { id: number; op: string }) => {
  if (message.op === 'release') {
    release();
    clearInterval(keepAlive);
    process.send?.({ id: message.id, ok: true });
    process.disconnect();
  }
});
