#!/usr/bin/env node
// Builds woolrx's native addon (native/addon.c, Node-API) for every
// platform the package ships, into prebuilds/<platform>-<arch>/ with the
// prebuildify/node-gyp-build file names, so that users never compile:
//
//   prebuilds/linux-x64/woolrx-flock.glibc.node    cc (the host's gcc)
//   prebuilds/linux-x64/woolrx-flock.musl.node     musl-gcc          (Debian: musl-tools)
//   prebuilds/linux-arm64/woolrx-flock.glibc.node  aarch64-linux-gnu-gcc (Debian: gcc-aarch64-linux-gnu)
//
// Node-API is ABI-stable: one binary per platform loads in every Node.js and
// Electron version (NAPI_VERSION 1). The headers come from the
// node-api-headers package (a devDependency), not from one Node install.
// Usage: node scripts/build/prebuilds.mjs [--only-host]
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const include = createRequire(import.meta.url)('node-api-headers').include_dir;
const source = join(root, 'native/addon.c');

const targets = [
  { dir: 'linux-x64', libc: 'glibc', cc: 'gcc', apt: 'gcc' },
  { dir: 'linux-x64', libc: 'musl', cc: 'musl-gcc', apt: 'musl-tools' },
  { dir: 'linux-arm64', libc: 'glibc', cc: 'aarch64-linux-gnu-gcc', apt: 'gcc-aarch64-linux-gnu' },
];
const onlyHost = process.argv.includes('--only-host');

const flags = [
  '-std=c11',
  '-O2',
  '-fPIC',
  '-shared',
  '-fvisibility=hidden',
  '-Wall',
  '-Wextra',
  '-Werror',
  '-DNODE_GYP_MODULE_NAME=woolrx_flock',
  `-I${include}`,
  '-Wl,-z,noexecstack',
  '-Wl,-z,relro',
  '-s',
];

rmSync(join(root, 'prebuilds'), { recursive: true, force: true });
const missing = [];
for (const target of targets) {
  if (onlyHost && !(target.dir === `${process.platform}-${process.arch}` && target.libc === 'glibc')) continue;
  const found = spawnSync('sh', ['-c', `command -v ${target.cc}`], { encoding: 'utf8' });
  if (found.status !== 0) {
    missing.push(target);
    continue;
  }
  const outDir = join(root, 'prebuilds', target.dir);
  mkdirSync(outDir, { recursive: true });
  const out = join(outDir, `woolrx-flock.${target.libc}.node`);
  const result = spawnSync(target.cc, [...flags, '-o', out, source], { stdio: 'inherit' });
  if (result.status !== 0) {
    console.error(`prebuilds: ${target.cc} failed for ${target.dir} (${target.libc})`);
    process.exit(1);
  }
}
if (missing.length > 0) {
  console.error(
    `prebuilds: no compiler for ${missing.map((t) => `${t.dir} (${t.libc}): ${t.cc}`).join(', ')}.\n` +
      `Install it (Debian: apt-get install ${[...new Set(missing.map((t) => t.apt))].join(' ')}), ` +
      "or build the host's addon alone: node scripts/build/prebuilds.mjs --only-host",
  );
  process.exit(1);
}
