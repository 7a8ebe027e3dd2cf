#!/usr/bin/env node
// Runs every test file (unit, marbles, contract, integration) with Node's own
// test runner, TypeScript loaded by tsx. Usage: node scripts/test.mjs [dir|file ...]
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';

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
const result = spawnSync(
  process.execPath,
  ['--import', 'tsx', '--test', '--test-reporter=spec', '--test-timeout=120000', ...files],
  { stdio: 'inherit', env: { ...process.env, WOOLRX_TEST: '1' } },
);
process.exit(result.status ?? 1);
