// The published package, as users get it: `npm pack`, then installs of the
// tarball into fresh consumer projects with the C++ toolchain hidden from PATH
// (test/package/packedProject.ts: the flock addon must come prebuilt). Each
// project type-checks a program on every entry (nodenext, node16, bundler,
// node10; a browser lib without esnext.disposable) and runs it: woolrx/local
// publishes and watches through shared memory, woolrx/etcd loads etcd3 on first
// use, also from an esbuild bundle of the program. A core-only install (no
// optional packages, no etcd3) still publishes through woolrx/local (its flock
// addon is part of the package) and fails on woolrx/etcd's use with a
// MissingDependencyError, catchable from ESM and CJS. Install sizes are
// reported as diagnostics.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { copyFileSync, existsSync, lstatSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it, type TestContext } from 'node:test';
import { FIXTURES, REPO, ok, packWorkspace, type PackedWorkspace } from './packedProject.js';

const TSC = join(REPO, 'node_modules/typescript/bin/tsc');
const ESBUILD = join(REPO, 'node_modules/.bin/esbuild');
const MB = 1024 * 1024;

let ws: PackedWorkspace;
let tarball: string;

/** Runs a consumer's program (they finish in about a second). */
function runProgram(file: string, cwd: string, args: readonly string[] = [], extraEnv: NodeJS.ProcessEnv = {}): string {
  return ok(ws.run(process.execPath, [file, ...args], cwd, extraEnv, 60_000), `node ${file} in ${cwd}`);
}

function npmInstall(cwd: string, args: readonly string[]): void {
  ws.npmInstall(cwd, args);
}

function project(name: string, type: 'module' | 'commonjs'): string {
  return ws.project(name, type);
}

function tsconfig(
  dir: string,
  name: string,
  compilerOptions: Record<string, unknown>,
  files: readonly string[],
): string {
  const file = join(dir, `tsconfig.${name}.json`);
  const options = {
    target: 'ES2022',
    strict: true,
    skipLibCheck: false,
    exactOptionalPropertyTypes: true,
    noUncheckedIndexedAccess: true,
    ...compilerOptions,
  };
  writeFileSync(file, `${JSON.stringify({ compilerOptions: options, files }, null, 2)}\n`);
  return file;
}

function typecheck(dir: string, config: string): void {
  ok(ws.run(process.execPath, [TSC, '-p', config], dir), `tsc -p ${config}`);
}

/** Installed packages (nested ones too) and bytes of their files (symlinks not followed). */
function footprint(dir: string, exclude: readonly string[] = []): { packages: number; bytes: number } {
  let packages = 0;
  let bytes = 0;
  const walk = (modules: string, top: boolean): void => {
    if (!existsSync(modules)) return;
    for (const entry of readdirSync(modules)) {
      if (entry.startsWith('.')) continue;
      const names = entry.startsWith('@')
        ? readdirSync(join(modules, entry)).map((scoped) => `${entry}/${scoped}`)
        : [entry];
      for (const name of names) {
        const path = join(modules, name);
        if ((top && exclude.includes(name)) || !existsSync(join(path, 'package.json'))) continue;
        packages += 1;
        bytes += size(path);
        walk(join(path, 'node_modules'), false);
      }
    }
  };
  /** Bytes of a package's files, without its nested node_modules (walked as packages). */
  const size = (path: string): number => {
    const stat = lstatSync(path);
    if (!stat.isDirectory()) return stat.size;
    let total = 0;
    for (const entry of readdirSync(path)) if (entry !== 'node_modules') total += size(join(path, entry));
    return total;
  };
  walk(join(dir, 'node_modules'), true);
  return { packages, bytes };
}

function report(t: TestContext, label: string, dir: string): { packages: number; bytes: number } {
  const all = footprint(dir);
  const own = footprint(dir, ['rxjs']);
  t.diagnostic(
    `${label}: ${all.packages} packages, ${(all.bytes / MB).toFixed(1)} MB; without rxjs (the peer): ${own.packages} packages, ${(own.bytes / MB).toFixed(1)} MB`,
  );
  return own;
}

async function closedEndpoint(): Promise<string> {
  const port = await new Promise<number>((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address !== null ? done(address.port) : fail(new Error('no port')),
      );
    });
  });
  return `http://127.0.0.1:${port}`;
}

describe('the packed package, installed without a C++ toolchain', { timeout: 900_000 }, () => {
  before(() => {
    ws = packWorkspace('pkg');
    tarball = ws.tarball;
  });

  after(() => {
    ws?.dispose();
  });

  it('core only (no optional packages, no etcd3): woolrx/local publishes (its addon is in the package), woolrx/etcd fails on use with a MissingDependencyError, in ESM and CJS', (t) => {
    const dir = project('core', 'module');
    npmInstall(dir, ['--omit=optional', tarball, 'rxjs@^7.8.0']);
    const own = report(t, 'core only', dir);
    assert.ok(own.bytes <= 10 * MB, `core install is ${(own.bytes / MB).toFixed(1)} MB`);
    assert.deepEqual(
      readdirSync(join(dir, 'node_modules/woolrx/prebuilds')).sort(),
      ['linux-arm64', 'linux-x64'],
      'the prebuilt flock addons ship in the package',
    );
    assert.equal(existsSync(join(dir, 'node_modules/etcd3')), false);
    assert.equal(existsSync(join(dir, 'node_modules/@grpc')), false);
    assert.equal(existsSync(join(dir, 'node_modules/protobufjs')), false, 'the protobuf runtime is bundled');

    const namespace = `pkg-${randomUUID().slice(0, 8)}`;
    for (const file of ['missing.mjs', 'missing.cjs']) {
      copyFileSync(join(FIXTURES, file), join(dir, file));
      const out = JSON.parse(runProgram(file, dir, [namespace])) as Record<string, unknown>;
      assert.equal(out['local'], 'published', `${file}: woolrx/local needs no optional package`);
      assert.deepEqual(
        out['etcd'],
        [
          true,
          true,
          'WOOLRX_MISSING_DEPENDENCY',
          'etcd3',
          'woolrx/etcd needs the package etcd3, which is not installed: npm install etcd3',
        ],
        file,
      );
      assert.equal(out['core'], true, `${file}: the core works`);
    }
  });

  it('ESM project: installs, type-checks (nodenext, node16, bundler, browser lib, the Electron example) and runs every entry', async (t) => {
    const dir = project('esm', 'module');
    npmInstall(dir, [tarball, 'rxjs@^7.8.0']);
    const local = report(t, 'core + local (default install)', dir);
    assert.ok(local.bytes <= 10 * MB, `core + local install is ${(local.bytes / MB).toFixed(1)} MB`);
    npmInstall(dir, ['etcd3@^1.1.2']);
    report(t, 'all backends (+ etcd3)', dir);
    npmInstall(dir, ['--save-dev', '@types/node@^20']);

    copyFileSync(join(FIXTURES, 'program.ts'), join(dir, 'program.ts'));
    copyFileSync(join(FIXTURES, 'browser.ts'), join(dir, 'browser.ts'));
    const node = { types: ['node'], lib: ['ES2022'] };
    typecheck(
      dir,
      tsconfig(dir, 'nodenext', { ...node, module: 'nodenext', moduleResolution: 'nodenext', outDir: 'out' }, [
        'program.ts',
      ]),
    );
    typecheck(
      dir,
      tsconfig(dir, 'node16', { ...node, module: 'node16', moduleResolution: 'node16', noEmit: true }, ['program.ts']),
    );
    typecheck(
      dir,
      tsconfig(dir, 'bundler', { ...node, module: 'esnext', moduleResolution: 'bundler', noEmit: true }, [
        'program.ts',
      ]),
    );
    // A browser project: no Node types, no esnext.disposable in lib.
    typecheck(
      dir,
      tsconfig(
        dir,
        'browser',
        { types: [], lib: ['ES2022', 'DOM'], module: 'esnext', moduleResolution: 'bundler', noEmit: true },
        ['browser.ts'],
      ),
    );
    // The Electron example, against the package (its electron.d.ts stands in for electron's types).
    mkdirSync(join(dir, 'electron'));
    for (const file of readdirSync(join(REPO, 'docs/examples/electron')).filter((name) => name.endsWith('.ts'))) {
      copyFileSync(join(REPO, 'docs/examples/electron', file), join(dir, 'electron', file));
    }
    const electronFiles = readdirSync(join(dir, 'electron')).map((file) => `electron/${file}`);
    typecheck(
      dir,
      tsconfig(
        dir,
        'electron',
        { ...node, module: 'nodenext', moduleResolution: 'nodenext', noEmit: true },
        electronFiles,
      ),
    );

    const endpoint = await closedEndpoint();
    const out = JSON.parse(runProgram('out/program.js', dir, [], { WOOLRX_CLOSED_ENDPOINT: endpoint })) as Record<
      string,
      unknown
    >;
    assert.deepEqual(out, {
      codec: true,
      memory: 'worker-added',
      bridge: '127.0.0.1:50051',
      testing: '9e3779b1-0000-4000-8000-000000000001',
      localAdded: ['gpu'],
      localDropped: 'worker-dropped',
      lan: ['_wool-a46a1b._tcp.local.', 'pkg'],
      etcd: 'WOOLRX_ETCD_UNAVAILABLE',
      missingDependencyError: 'function',
    });

    // Bundled into one CommonJS file with no externals, as an Electron main
    // process often is: the optional packages (the .node addon, etcd3 and its
    // .proto files) stay out of the bundle and load from node_modules.
    ok(
      ws.run(
        ESBUILD,
        ['program.ts', '--bundle', '--platform=node', '--format=cjs', '--outfile=bundle/main.cjs', '--log-level=error'],
        dir,
      ),
      'esbuild',
    );
    const bundled = JSON.parse(runProgram('bundle/main.cjs', dir, [], { WOOLRX_CLOSED_ENDPOINT: endpoint })) as Record<
      string,
      unknown
    >;
    assert.deepEqual(bundled, out, 'the bundle behaves as the program');
  });

  it('CJS project: installs, type-checks (node16, node10 through typesVersions) and runs every entry', async () => {
    const dir = project('cjs', 'commonjs');
    npmInstall(dir, [tarball, 'rxjs@^7.8.0', 'etcd3@^1.1.2', '@types/node@^20']);
    copyFileSync(join(FIXTURES, 'program.ts'), join(dir, 'program.ts'));
    const node = { types: ['node'], lib: ['ES2022'] };
    typecheck(
      dir,
      tsconfig(dir, 'node16', { ...node, module: 'node16', moduleResolution: 'node16', outDir: 'out' }, ['program.ts']),
    );
    typecheck(
      dir,
      tsconfig(dir, 'node10', { ...node, module: 'commonjs', moduleResolution: 'node10', noEmit: true }, [
        'program.ts',
      ]),
    );
    const compiled = execFileSync('head', ['-c', '2000', join(dir, 'out/program.js')], { encoding: 'utf8' });
    assert.match(compiled, /require\("woolrx\/local"\)/, 'compiled to CommonJS');

    const endpoint = await closedEndpoint();
    const out = JSON.parse(runProgram('out/program.js', dir, [], { WOOLRX_CLOSED_ENDPOINT: endpoint })) as Record<
      string,
      unknown
    >;
    assert.equal(out['localDropped'], 'worker-dropped');
    assert.equal(out['etcd'], 'WOOLRX_ETCD_UNAVAILABLE');
    assert.equal(out['codec'], true);
    assert.equal(out['bridge'], '127.0.0.1:50051');
  });

  it('attw and publint find no problem with the tarball', () => {
    const attw = ws.run(
      process.execPath,
      [join(REPO, 'node_modules/@arethetypeswrong/cli/dist/index.js'), tarball, '--format', 'table-flipped'],
      REPO,
    );
    assert.equal(attw.status, 0, `attw:\n${attw.stdout}\n${attw.stderr}`);
    assert.match(attw.stdout, /No problems found/);
    const publint = ws.run(process.execPath, [join(REPO, 'node_modules/publint/src/cli.js'), '--strict', REPO], REPO);
    assert.equal(publint.status, 0, `publint:\n${publint.stdout}\n${publint.stderr}`);
    assert.match(publint.stdout, /All good/);
  });
});
