import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';

// `npm test` builds first (the `pretest` script), so dist/ is what users get.
const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as {
  exports: Record<string, string | Record<string, Record<string, string>>>;
  typesVersions: Record<string, Record<string, string[]>>;
  sideEffects: unknown;
  license: string;
  repository: { url: string };
  homepage: string;
  bugs: { url: string };
  keywords: string[];
  peerDependencies: Record<string, string>;
  peerDependenciesMeta: Record<string, { optional?: boolean }>;
  dependencies: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  engines: Record<string, string>;
};
const REPOSITORY = 'https://github.com/woolrx/woolrx';

function run(args: string[]): string {
  return execFileSync(process.execPath, args, { encoding: 'utf8' });
}

describe('package', () => {
  it('is side-effect free with rxjs as a peer', () => {
    assert.equal(pkg.sideEffects, false);
    assert.match(pkg.peerDependencies['rxjs'] ?? '', /^\^7\.8/);
  });

  it('has its metadata: licence file, repository, homepage, bugs, keywords', () => {
    assert.equal(pkg.license, 'Apache-2.0');
    assert.match(readFileSync('LICENSE', 'utf8'), /^\s*Apache License\s+Version 2\.0, January 2004/);
    assert.equal(pkg.repository.url, `git+${REPOSITORY}.git`);
    assert.ok(pkg.homepage.startsWith(REPOSITORY));
    assert.equal(pkg.bugs.url, `${REPOSITORY}/issues`);
    assert.ok(pkg.keywords.length >= 5);
  });

  it('installs light: etcd3 is an optional peer, the flock addon prebuilt inside the package, the protobuf runtime bundled', () => {
    assert.deepEqual(Object.keys(pkg.dependencies).sort(), ['dns-packet', 'multicast-dns']);
    assert.equal(
      pkg.optionalDependencies,
      undefined,
      'nothing optional to install: the flock addon ships in prebuilds/',
    );
    assert.ok(pkg.peerDependencies['etcd3'] !== undefined && pkg.peerDependenciesMeta['etcd3']?.optional === true);
  });

  it('packs what users need and nothing else: no source maps, no CLI declarations or CJS CLI, the docs it links', () => {
    const [packed] = JSON.parse(
      execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
        encoding: 'utf8',
        env: { ...process.env, npm_config_json: 'true' },
      }),
    ) as [{ files: { path: string }[] }];
    const files = packed.files.map((file) => file.path);
    for (const needed of [
      'LICENSE',
      'README.md',
      'THIRD_PARTY_NOTICES.md',
      'docs/wool-wire.md',
      'proto/woolrx.proto',
      'dist/cli/main.js',
      'prebuilds/linux-x64/woolrx-flock.glibc.node',
      'prebuilds/linux-x64/woolrx-flock.musl.node',
      'prebuilds/linux-arm64/woolrx-flock.glibc.node',
    ]) {
      assert.ok(files.includes(needed), `${needed} is not packed`);
    }
    assert.deepEqual(
      files.filter((file) => file.endsWith('.map')),
      [],
    );
    assert.deepEqual(
      files.filter((file) => file.startsWith('dist/cli/') && !/^dist\/cli\/[\w-]+\.js$/.test(file)),
      [],
    );
    assert.deepEqual(
      files.filter(
        (file) =>
          !/^(dist\/|prebuilds\/linux-(?:x64|arm64)\/woolrx-flock\.(?:glibc|musl)\.node$|docs\/wool-wire\.md$|proto\/|LICENSE$|README\.md$|THIRD_PARTY_NOTICES\.md$|package\.json$)/.test(
            file,
          ),
      ),
      [],
    );
  });

  it('README links work on the npm page: absolute, to files that exist in the repository', () => {
    const links = [...readFileSync('README.md', 'utf8').matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1] ?? '');
    assert.ok(links.length > 10);
    for (const link of links) {
      assert.match(link, /^https:\/\//, `relative link ${link}`);
      const inRepo = new RegExp(`^${REPOSITORY}/(?:blob|tree)/main/([^#]+)`).exec(link);
      if (inRepo !== null) assert.ok(existsSync(inRepo[1] ?? ''), `${link}: ${inRepo[1]} does not exist`);
    }
  });

  it('typesVersions (node10 resolution) lists every subpath of the exports map', () => {
    const subpaths = Object.keys(pkg.exports)
      .filter((key) => key !== '.' && key !== './package.json')
      .map((key) => key.slice(2));
    assert.deepEqual(Object.keys(pkg.typesVersions['*'] ?? {}).sort(), subpaths.sort());
    for (const subpath of subpaths) {
      const conditions = pkg.exports[`./${subpath}`];
      assert.ok(typeof conditions === 'object');
      assert.deepEqual(pkg.typesVersions['*']?.[subpath], [conditions['require']?.['types']]);
    }
  });

  for (const [subpath, conditions] of Object.entries(pkg.exports)) {
    if (typeof conditions === 'string') continue;
    it(`exports ${subpath} with types first, for import and require, and the files exist`, () => {
      for (const kind of ['import', 'require']) {
        const target: Record<string, string> | undefined = conditions[kind];
        assert.ok(target, `${subpath} lacks a ${kind} condition`);
        assert.equal(Object.keys(target)[0], 'types', `${subpath} ${kind}: "types" must come first`);
        for (const file of Object.values(target)) assert.ok(existsSync(file), `${file} is missing: run npm run build`);
      }
    });
  }

  it('the core loads through the exports map from ESM and CJS with the same API', () => {
    const esm = run([
      '--input-type=module',
      '-e',
      "import * as w from 'woolrx'; console.log(Object.keys(w).sort().join(','))",
    ]);
    const cjs = run(['-e', "console.log(Object.keys(require('woolrx')).sort().join(','))"]);
    assert.equal(esm, cjs);
    for (const name of [
      'workerInfo',
      'sameWorker',
      'encodeWorker',
      'decodeWorker',
      'encodeTxt',
      'decodeTxt',
      'diffSnapshots',
      'toSnapshots',
      'filterWorkers',
      'predicatedTake',
      'PredicatedQueue',
      'shareWorkers',
      'expireWorkers',
      'memoryDiscovery',
      'relayWorkers',
      'RELAY_MARK',
    ]) {
      assert.ok(esm.trim().split(',').includes(name), `woolrx does not export ${name}`);
    }
  });

  it('woolrx/testing loads from ESM and CJS', () => {
    const esm = run([
      '--input-type=module',
      '-e',
      "import { testWorker } from 'woolrx/testing'; console.log(testWorker(1).uid)",
    ]);
    const cjs = run(['-e', "console.log(require('woolrx/testing').testWorker(1).uid)"]);
    assert.equal(esm.trim(), '9e3779b1-0000-4000-8000-000000000001');
    assert.equal(cjs, esm);
  });

  it('a worker built by the CJS build is accepted by the ESM build (no dual-package hazard for data)', () => {
    const out = run([
      '--input-type=module',
      '-e',
      "import { createRequire } from 'node:module'; import { sameWorker, encodeWorker, decodeWorker } from 'woolrx';" +
        "const cjs = createRequire(import.meta.url)('woolrx'); const w = cjs.workerInfo({ uid: '6f1d2b1c-4c0b-4e7e-9a56-0c2b9d1d7e11', address: 'h:1', pid: 1, version: 'v' });" +
        'console.log(sameWorker(decodeWorker(encodeWorker(w)), w))',
    ]);
    assert.equal(out.trim(), 'true');
  });
});

describe('the built entries', () => {
  it('every exported error class keeps its name, which errors report as `name` (the build does not use keepNames: it would defeat tree-shaking)', async () => {
    const checked: string[] = [];
    for (const entry of ['index', 'bridge/index', 'testing/index', 'local/index', 'lan/index', 'etcd/index']) {
      for (const file of [`../dist/${entry}.js`, `../dist/${entry}.cjs`]) {
        const api = (await import(new URL(file, import.meta.url).href)) as Record<string, unknown>;
        for (const [name, value] of Object.entries(api)) {
          if (typeof value !== 'function' || !(value.prototype instanceof Error)) continue;
          assert.equal(
            (value as { name: string }).name,
            name,
            `${file}: class ${name} is named ${(value as { name: string }).name}`,
          );
          checked.push(name);
        }
      }
    }
    assert.ok(
      checked.includes('WoolrxError') &&
        checked.includes('FlockUnavailableError') &&
        checked.includes('BridgeClosedError'),
      checked.join(', '),
    );
  });
});
