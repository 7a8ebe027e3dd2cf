import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';

// `npm test` builds first (the `pretest` script), so dist/ is what users get.
const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as {
  exports: Record<string, string | Record<string, Record<string, string>>>;
  sideEffects: unknown;
  peerDependencies: Record<string, string>;
};

function run(args: string[]): string {
  return execFileSync(process.execPath, args, { encoding: 'utf8' });
}

describe('package', () => {
  it('is side-effect free with rxjs as a peer', () => {
    assert.equal(pkg.sideEffects, false);
    assert.match(pkg.peerDependencies['rxjs'] ?? '', /^\^7\.8/);
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
    const esm = run(['--input-type=module', '-e', "import * as w from 'woolrx'; console.log(Object.keys(w).sort().join(','))"]);
    const cjs = run(['-e', "console.log(Object.keys(require('woolrx')).sort().join(','))"]);
    assert.equal(esm, cjs);
    for (const name of ['workerInfo', 'sameWorker', 'encodeWorker', 'decodeWorker', 'encodeTxt', 'decodeTxt', 'diffSnapshots',
      'toSnapshots', 'filterWorkers', 'predicatedTake', 'PredicatedQueue', 'shareWorkers', 'expireWorkers', 'memoryDiscovery']) {
      assert.ok(esm.trim().split(',').includes(name), `woolrx does not export ${name}`);
    }
  });

  it('woolrx/testing loads from ESM and CJS', () => {
    const esm = run(['--input-type=module', '-e', "import { testWorker } from 'woolrx/testing'; console.log(testWorker(1).uid)"]);
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
