#!/usr/bin/env node
/**
 * The `woolrx` executable: wires the process (argv, stdio, SIGINT/SIGTERM/SIGHUP,
 * exit status) to {@link runCli}. SIGHUP (the terminal or tmux pane closed)
 * stops a command as SIGTERM does: it withdraws and cleans up, writes to
 * the gone terminal fail quietly (see {@link runCli}) and the process exits
 * normally (see {@link releaseHungUpTerminal}). A second signal exits at once.
 * @packageDocumentation
 */
import { isatty } from 'node:tty';
import { releaseHungUpTerminal } from './releaseHungUpTerminal.js';
import { runCli } from './runCli.js';

const terminals = [0, 1, 2].filter((fd) => isatty(fd));
if (terminals.length > 0) process.on('exit', () => releaseHungUpTerminal(terminals));

const controller = new AbortController();
let signals = 0;
const onSignal = (signal: NodeJS.Signals): void => {
  signals += 1;
  if (signals > 1) process.exit(128 + (signal === 'SIGINT' ? 2 : signal === 'SIGHUP' ? 1 : 15));
  controller.abort();
};
process.on('SIGINT', onSignal);
process.on('SIGTERM', onSignal);
process.on('SIGHUP', onSignal);

// A command waiting for a signal holds no handle of its own (a registered
// publisher needs none): keep the event loop alive until it returns.
const alive = setInterval(() => undefined, 2 ** 30);

runCli(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, signal: controller.signal }).then(
  (code) => {
    clearInterval(alive);
    process.exitCode = code;
    // Everything is released by now; should a backend still hold the event
    // loop, do not hang the shell.
    setTimeout(() => process.exit(code), 2000).unref();
  },
  (error: unknown) => {
    process.stderr.write(`woolrx: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
