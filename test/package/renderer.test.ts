// The renderer-safe entries as users get them: the packed tarball installed in
// a fresh project (no dev dependencies), bundled for the browser by esbuild,
// webpack 5 and Vite (Rollup) — the bundlers are this test's dev dependencies,
// the package comes from the consumer's node_modules. Each bundle of `woolrx`,
// `woolrx/bridge` and `woolrx/testing` (ESM, and CommonJS through webpack's
// `require`) must resolve no Node built-in and print no warning. Each renderer
// pipeline (discoveryFrom(port).snapshots(filter); workersFrom + filterWorkers
// + shareWorkers + toSnapshots; rxjs external, minified) must stay within
// 20 KB and leave the protobuf runtime out.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { build as esbuild } from 'esbuild';
import webpack from 'webpack';
import { build as viteBuild, type Rollup } from 'vite';
import { packWorkspace, type PackedWorkspace } from './packedProject.js';

const ENTRIES = ['woolrx', 'woolrx/bridge', 'woolrx/testing'] as const;
const BUILTINS = new Set(builtinModules.flatMap((name) => [name, `node:${name}`]));
/** Strings of protobufjs's runtime (its reader's errors): present only where the codec is bundled. */
const PROTOBUF_MARKERS = ['index out of range', 'invalid wire type'];
const PIPELINES = {
  // What docs/electron.md recommends: the read contract, "loading" until the first snapshot.
  discoveryFrom: `
import { discoveryFrom } from 'woolrx/bridge';
globalThis.watch = (port, render) =>
  discoveryFrom(port)
    .snapshots((worker) => worker.tags.includes('gpu'))
    .subscribe(render);
`,
  // The events-only form.
  workersFrom: `
import { filterWorkers, shareWorkers, toSnapshots } from 'woolrx';
import { workersFrom } from 'woolrx/bridge';
globalThis.watch = (port, render) =>
  workersFrom(port)
    .pipe(filterWorkers((worker) => worker.tags.includes('gpu')), shareWorkers(), toSnapshots())
    .subscribe(render);
`,
} as const;

let ws: PackedWorkspace;
let dir: string;

function entryFile(name: string, contents: string): string {
  const file = join(dir, name);
  writeFileSync(file, contents);
  return file;
}

function namespaceImport(entry: string, format: 'esm' | 'cjs'): string {
  const file = `${entry.replace(/\W/g, '_')}.${format === 'esm' ? 'mjs' : 'cjs'}`;
  return entryFile(
    file,
    format === 'esm'
      ? `import * as api from '${entry}';\nglobalThis.api = api;\n`
      : `globalThis.api = require('${entry}');\n`,
  );
}

interface Bundle {
  readonly code: string;
  readonly warnings: string[];
  readonly builtins: string[];
}

async function withEsbuild(file: string, options: { minify?: boolean; external?: string[] } = {}): Promise<Bundle> {
  const builtins: string[] = [];
  const result = await esbuild({
    entryPoints: [file],
    absWorkingDir: dir,
    bundle: true,
    write: false,
    platform: 'browser',
    format: 'esm',
    target: 'es2022',
    minify: options.minify ?? false,
    external: options.external ?? [],
    logLevel: 'silent',
    plugins: [
      {
        name: 'builtins',
        setup(build) {
          build.onResolve({ filter: /.*/ }, (args) => {
            const bare = args.path.startsWith('node:') ? args.path : (args.path.split('/')[0] ?? '');
            if (!BUILTINS.has(args.path) && !BUILTINS.has(bare)) return undefined;
            builtins.push(`${args.path} (from ${args.importer})`);
            return { path: args.path, external: true };
          });
        },
      },
    ],
  });
  return {
    code: result.outputFiles.map((out) => out.text).join('\n'),
    warnings: result.warnings.map((w) => w.text),
    builtins,
  };
}

function withWebpack(file: string, options: { external?: boolean } = {}): Promise<Bundle> {
  const compiler = webpack({
    mode: 'production',
    target: 'web',
    context: dir,
    entry: file,
    output: { path: join(dir, 'webpack-out'), filename: 'bundle.js' },
    performance: false,
    externals: options.external === true ? { rxjs: 'rxjs', 'rxjs/operators': 'rxjs' } : {},
    infrastructureLogging: { level: 'none' },
  });
  assert.ok(compiler !== null);
  const fs = new Map<string, string>();
  compiler.outputFileSystem = {
    mkdir: (_path: string, ...rest: unknown[]) => (rest.at(-1) as () => void)(),
    writeFile: (path: string, data: string | Buffer, ...rest: unknown[]) => {
      fs.set(path, String(data));
      (rest.at(-1) as () => void)();
    },
    stat: (_path: string, callback: (error: Error) => void) =>
      callback(Object.assign(new Error('ENOENT'), { code: 'ENOENT' })),
  } as unknown as typeof compiler.outputFileSystem;
  return new Promise((resolve, reject) => {
    compiler.run((error, stats) => {
      compiler.close(() => undefined);
      if (error !== null && error !== undefined) return reject(error);
      assert.ok(stats !== undefined);
      const info = stats.toJson({ all: false, errors: true, warnings: true });
      const errors = (info.errors ?? []).map((e) => e.message);
      const builtins = errors.filter(
        (message) =>
          /Can't resolve '(?:node:)?[\w/]+'/.test(message) && [...BUILTINS].some((b) => message.includes(`'${b}'`)),
      );
      if (errors.length > builtins.length) return reject(new Error(`webpack:\n${errors.join('\n')}`));
      resolve({ code: [...fs.values()].join('\n'), warnings: (info.warnings ?? []).map((w) => w.message), builtins });
    });
  });
}

async function withVite(file: string, options: { external?: boolean } = {}): Promise<Bundle> {
  const warnings: string[] = [];
  const builtins: string[] = [];
  const note = (message: string): void => {
    if (/externalized for browser compatibility/.test(message)) builtins.push(message);
    else warnings.push(message);
  };
  const output = (await viteBuild({
    root: dir,
    configFile: false,
    logLevel: 'silent',
    customLogger: {
      info: () => undefined,
      warn: note,
      warnOnce: note,
      error: note,
      clearScreen: () => undefined,
      hasErrorLogged: () => false,
      hasWarned: false,
    },
    build: {
      write: false,
      minify: true,
      lib: { entry: file, formats: ['es'], fileName: 'bundle' },
      rollupOptions: {
        external: options.external === true ? [/^rxjs/] : [],
        onwarn: (warning) => note(warning.message),
      },
    },
  })) as Rollup.RollupOutput | Rollup.RollupOutput[];
  const outputs = Array.isArray(output) ? output : [output];
  const code = outputs
    .flatMap((o) => o.output)
    .map((chunk) => ('code' in chunk ? chunk.code : ''))
    .join('\n');
  return { code, warnings, builtins };
}

const BUNDLERS = { esbuild: withEsbuild, webpack: withWebpack, vite: withVite } as const;

function assertClean(bundle: Bundle, what: string): void {
  assert.deepEqual(bundle.builtins, [], `${what} pulls in Node built-ins`);
  assert.deepEqual(bundle.warnings, [], `${what} warns`);
  assert.ok(bundle.code.length > 500, `${what}: empty bundle`);
}

function kb(bytes: number): string {
  return `${(bytes / 1000).toFixed(1)} KB`;
}

describe('the packed package in browser bundlers', { timeout: 600_000 }, () => {
  before(() => {
    ws = packWorkspace('renderer');
    dir = ws.project('renderer', 'module');
    // What a renderer project installs: the package and its peer, no dev dependencies.
    ws.npmInstall(dir, ['--omit=dev', ws.tarball, 'rxjs@^7.8.0']);
  });

  after(() => ws?.dispose());

  for (const [bundler, bundle] of Object.entries(BUNDLERS)) {
    for (const entry of ENTRIES) {
      it(`${bundler}: ${entry} (ESM) bundles for the browser with no Node built-in and no warning`, async () => {
        assertClean(await bundle(namespaceImport(entry, 'esm')), `${bundler} ${entry}`);
      });
    }
  }

  for (const entry of ENTRIES) {
    it(`webpack: require('${entry}') (the CommonJS build) bundles for the browser with no Node built-in and no warning`, async () => {
      assertClean(await withWebpack(namespaceImport(entry, 'cjs')), `webpack require(${entry})`);
    });
  }

  it('the checks can fail: a Node built-in is caught by each bundler', async () => {
    const file = entryFile(
      'node-builtin.mjs',
      "import { tmpdir } from 'os';\nimport { filterWorkers } from 'woolrx';\nglobalThis.x = [tmpdir, filterWorkers];\n",
    );
    assert.deepEqual(
      (await withEsbuild(file)).builtins.map((b) => b.split(' ')[0]),
      ['os'],
    );
    assert.equal((await withWebpack(file)).builtins.length, 1);
    assert.equal((await withVite(file)).builtins.length, 1);
  });

  it('each renderer pipeline is at most 20 KB minified (rxjs external) and leaves the protobuf runtime out, in every bundler', async (t) => {
    for (const [name, source] of Object.entries(PIPELINES)) {
      const file = entryFile(`pipeline-${name}.mjs`, source);
      const sizes: string[] = [];
      const pipelines = {
        esbuild: () => withEsbuild(file, { minify: true, external: ['rxjs'] }),
        webpack: () => withWebpack(file, { external: true }),
        vite: () => withVite(file, { external: true }),
      };
      for (const [bundler, bundle] of Object.entries(pipelines)) {
        const result = await bundle();
        assertClean(result, `${bundler} ${name} pipeline`);
        const bytes = Buffer.byteLength(result.code);
        sizes.push(`${bundler} ${kb(bytes)}`);
        assert.ok(bytes <= 20_000, `${bundler}: the ${name} renderer pipeline is ${kb(bytes)}`);
        for (const marker of PROTOBUF_MARKERS)
          assert.ok(
            !result.code.includes(marker),
            `${bundler}: protobufjs (${marker}) is in the ${name} pipeline bundle`,
          );
      }
      t.diagnostic(`${name} renderer pipeline, minified, rxjs external: ${sizes.join(', ')}`);
    }
    // The marker check can fail: the codec's bundle carries them.
    const codec = await withEsbuild(
      entryFile('codec.mjs', "import { decodeWorker } from 'woolrx';\nglobalThis.decode = decodeWorker;\n"),
      { minify: true, external: ['rxjs'] },
    );
    for (const marker of PROTOBUF_MARKERS) assert.ok(codec.code.includes(marker), `the codec bundle has ${marker}`);
    t.diagnostic(`decodeWorker alone: ${kb(Buffer.byteLength(codec.code))}`);
  });

  it("reports each entry's minified size (esbuild, rxjs external)", async (t) => {
    for (const entry of ENTRIES) {
      const result = await withEsbuild(namespaceImport(entry, 'esm'), { minify: true, external: ['rxjs'] });
      assertClean(result, entry);
      t.diagnostic(`${entry}, whole entry: ${kb(Buffer.byteLength(result.code))}`);
    }
  });
});
