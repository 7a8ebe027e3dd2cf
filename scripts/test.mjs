#!/usr/bin/env node
// Runs every test file (unit, marbles, contract, integration) with Node's own
// test runner, TypeScript loaded by tsx. Usage: node scripts/test.mjs [dir|file ...]
//
// Then checks the whole run left nothing: the woolrx-shaped entries of
// /dev/shm and the temp directory are listed before and after (see
// scripts/leakCheck.mjs), and any new one fails the run, named. The report
// is printed just before the runner's closing summary, which stays last.
// WOOLRX_NO_LEAK_CHECK=1 skips it (for several runs at once on one machine,
// whose objects would show up in each other's check).
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { leakReport, newEntries, woolrxEntries } from './leakCheck.mjs';

const roots = process.argv.slice(2).length > 0 ? process.argv.slice(2) : ['test', 'marbles'];
const files = [];
for (const root of roots) {
  if (statSync(root).isFile()) {
    files.push(root);
    continue;
  }
  for (const entry of readdirSync(root, { recursive: true })) {
    const path = join(root, String(entry));
    if (/\.(test|spec)\.ts$/.test(path)) files.push(path);
  }
}
files.sort();
if (files.length === 0) {
  console.error('no test files found under', roots.join(', '));
  process.exit(1);
}
const check = process.env.WOOLRX_NO_LEAK_CHECK !== '1';
const before = check ? woolrxEntries() : new Set();
// Piped, to hold the closing summary back until the leak check is printed;
// colours as on a terminal when this process's stdout is one.
const color =
  process.stdout.isTTY && process.env.FORCE_COLOR === undefined && process.env.NO_COLOR === undefined
    ? { FORCE_COLOR: '1' }
    : {};
const runner = spawn(
  process.execPath,
  ['--import', 'tsx', '--test', '--test-reporter=spec', '--test-timeout=120000', ...files],
  { stdio: ['inherit', 'pipe', 'inherit'], env: { ...process.env, ...color, WOOLRX_TEST: '1' } },
);
const closing = [];
const lines = createInterface({ input: runner.stdout, crlfDelay: Infinity });
lines.on('line', (line) => {
  // The summary begins `ℹ tests N` (after a colour code, or not); it and all after it wait.
  const at = line.indexOf('ℹ tests ');
  if (closing.length > 0 || (at >= 0 && at <= 8 && /^ℹ tests \d+/.test(line.slice(at)))) closing.push(line);
  else process.stdout.write(`${line}\n`);
});
const [code] = await Promise.all([
  new Promise((resolve) => runner.on('exit', (status) => resolve(status))),
  new Promise((resolve) => lines.on('close', resolve)),
]);
const left = check ? newEntries(before, woolrxEntries()) : [];
if (left.length > 0) process.stdout.write(leakReport(left));
for (const line of closing) process.stdout.write(`${line}\n`);
// Killed by a signal: no status, a failure.
process.exit(left.length > 0 ? 1 : (code ?? 1));
