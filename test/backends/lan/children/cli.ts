/**
 * The woolrx CLI with `--backend lan` registered (as the lead will register
 * src/cli/lanBackend.ts), for the LAN CLI tests; run inside a network
 * namespace, never directly. Same wiring as src/cli/main.ts.
 */
import { backends } from '../../../../src/cli/backends.js';
import { commands } from '../../../../src/cli/commands.js';
import { lanBackend } from '../../../../src/cli/lanBackend.js';
import { runCli } from '../../../../src/cli/runCli.js';

const controller = new AbortController();
process.on('SIGINT', () => controller.abort());
process.on('SIGTERM', () => controller.abort());
const alive = setInterval(() => undefined, 2 ** 30);
runCli(
  process.argv.slice(2),
  { stdout: process.stdout, stderr: process.stderr, signal: controller.signal },
  { commands, backends: { ...backends, lan: lanBackend } },
).then(
  (code) => {
    clearInterval(alive);
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`cli: ${String(error)}\n`);
    process.exit(1);
  },
);
