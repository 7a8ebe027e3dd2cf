// What every test of the published package shares: `npm pack` of the built
// repository, a PATH with the C++ toolchain hidden (g++, gcc, cc, c++, make,
// clang: nothing may need compiling), and fresh consumer projects that install
// the tarball the way users do. Needs the npm registry (rxjs, etcd3, ...);
// `npm test` builds dist/ and the prebuilt addons first.
import assert from 'node:assert/strict';
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const FIXTURES = join(REPO, 'test/package/fixtures');
const TOOLCHAIN =
  /^(?:(?:[\w-]+-linux-(?:gnu|musl)-)?(?:g\+\+|gcc|c\+\+|cc|cpp|clang|clang\+\+)(?:-[\d.]+)?|musl-gcc|make|gmake)$/;

/** A scratch directory with the packed tarball and a toolchain-less environment. */
export interface PackedWorkspace {
  /** The scratch directory (removed by `dispose`). */
  readonly work: string;
  /** The packed tarball. */
  readonly tarball: string;
  /** Child environment: PATH without the toolchain, none of the outer npm's settings. */
  readonly env: NodeJS.ProcessEnv;
  /** Runs a command to completion (5 minutes at most). */
  run(
    command: string,
    args: readonly string[],
    cwd: string,
    extraEnv?: NodeJS.ProcessEnv,
    timeout?: number,
  ): SpawnSyncReturns<string>;
  /** A fresh consumer project (`package.json` only). */
  project(name: string, type: 'module' | 'commonjs'): string;
  /** `npm install` in a project (offline first), failing the test on error. */
  npmInstall(cwd: string, args: readonly string[], extraEnv?: NodeJS.ProcessEnv): void;
  /** Removes the scratch directory. */
  dispose(): void;
}

/** Asserts a finished command succeeded; returns its stdout. */
export function ok(result: SpawnSyncReturns<string>, what: string): string {
  assert.equal(
    result.status,
    0,
    `${what} failed (${String(result.status ?? result.signal)}):\n${result.stdout}\n${result.stderr}`,
  );
  return result.stdout;
}

/**
 * Packs the repository (as built: run `npm run build` first) into a new
 * scratch directory and prepares a PATH without any compiler.
 * @param label Names the scratch directory.
 */
export function packWorkspace(label: string): PackedWorkspace {
  const work = mkdtempSync(join(tmpdir(), `woolrx-${label}-`));
  const bin = join(work, 'bin');
  mkdirSync(bin);
  for (const dir of (process.env['PATH'] ?? '').split(delimiter)) {
    if (dir === '' || !existsSync(dir)) continue;
    for (const name of readdirSync(dir)) {
      if (TOOLCHAIN.test(name) || existsSync(join(bin, name))) continue;
      symlinkSync(join(dir, name), join(bin, name));
    }
  }
  const env: NodeJS.ProcessEnv = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key)));
  env['PATH'] = bin;
  env['npm_config_update_notifier'] = 'false';
  const run = (
    command: string,
    args: readonly string[],
    cwd: string,
    extraEnv: NodeJS.ProcessEnv = {},
    timeout = 300_000,
  ): SpawnSyncReturns<string> =>
    spawnSync(command, args, { cwd, env: { ...env, ...extraEnv }, encoding: 'utf8', timeout });
  const hidden = run('sh', ['-c', 'command -v g++ gcc cc c++ make clang musl-gcc || true'], work);
  assert.equal(hidden.stdout.trim(), '', 'the toolchain is hidden');
  assert.ok(existsSync(join(REPO, 'prebuilds')), 'prebuilds/ is missing: run `npm run build` first');

  const packed = JSON.parse(ok(run('npm', ['pack', '--json', '--pack-destination', work], REPO), 'npm pack')) as {
    filename: string;
  }[];
  const tarball = join(work, packed[0]?.filename ?? 'missing.tgz');
  return {
    work,
    tarball,
    env,
    run,
    project(name, type) {
      const dir = join(work, name);
      mkdirSync(dir, { recursive: true });
      writeFileSync(
        join(dir, 'package.json'),
        `${JSON.stringify({ name: `consumer-${name.replace(/\W/g, '-')}`, version: '1.0.0', private: true, type }, null, 2)}\n`,
      );
      return dir;
    },
    npmInstall(cwd, args, extraEnv = {}) {
      ok(
        run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', ...args], cwd, extraEnv),
        `npm install ${args.join(' ')} in ${cwd}`,
      );
    },
    dispose() {
      rmSync(work, { recursive: true, force: true });
    },
  };
}
