#!/usr/bin/env node
// `npm start`: runs the CLI from dist/ (`node scripts/start.mjs demo`), building
// it first only when dist/ is missing or older than what it is built from. The
// build's output goes to stderr, so piped stdout carries the command's output
// alone (NDJSON for the demo). npm prints its own `> woolrx start` banner on
// stdout: pipe `npm --silent start | …` (or run `node dist/cli/main.js demo`).
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const output = join(root, 'dist/cli/main.js');

function newest(path) {
  const stat = statSync(path, { throwIfNoEntry: false });
  if (stat === undefined) return 0;
  if (!stat.isDirectory()) return stat.mtimeMs;
  let latest = stat.mtimeMs;
  for (const entry of readdirSync(path)) latest = Math.max(latest, newest(join(path, entry)));
  return latest;
}

const built = statSync(output, { throwIfNoEntry: false })?.mtimeMs ?? 0;
const inputs = ['src', 'package.json', 'package-lock.json', 'tsup.config.ts', 'scripts/build'].map((path) =>
  newest(join(root, path)),
);
if (built === 0 || Math.max(...inputs) > built) {
  process.stderr.write('woolrx: building dist/ (npm run build) ...\n');
  const build = spawnSync('npm', ['run', 'build', '--silent'], { cwd: root, stdio: ['ignore', 2, 2] });
  if (build.status !== 0) process.exit(build.status ?? 1);
}
const cli = spawnSync(process.execPath, [output, ...process.argv.slice(2)], { stdio: 'inherit' });
process.exit(cli.status ?? (cli.signal === null ? 1 : 128));
