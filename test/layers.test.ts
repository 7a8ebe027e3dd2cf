// src/ reads as a picture: no import runs from a lower layer to a higher one
// (or between peer groups of a layer), and no import cycle — checked by
// scripts/check-layers.mjs, which anyone can run: node scripts/check-layers.mjs
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
// @ts-expect-error -- a plain .mjs script without type declarations
import { checkLayers } from '../scripts/check-layers.mjs';

type Check = (srcDir: string) => { problems: string[]; files: number; imports: number };

describe('layers of src/ (scripts/check-layers.mjs)', () => {
  it('src/ has no upward import, no import between peer groups and no import cycle', () => {
    const { problems, files } = (checkLayers as Check)(new URL('../src', import.meta.url).pathname);
    assert.ok(files > 100);
    assert.deepEqual(problems, []);
  });

  it('reports an upward import, a peer import and a cycle', () => {
    const dir = mkdtempSync(join(tmpdir(), 'woolrx-layers-'));
    const write = (path: string, text: string): void => {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    };
    try {
      write(
        'model/a.ts',
        "import { b } from '../operators/b.js';\n/** import { x } from '../cli/x.js'; */\nexport const a = 1;\n",
      );
      write('operators/b.ts', "import type { c } from './c.js';\nexport const b = 1;\n");
      write('operators/c.ts', "export { b } from './b.js';\nexport const c = 1;\n");
      write('backends/lan/d.ts', "const e = await import('../local/e.js');\n");
      write('backends/local/e.ts', 'export const e = 1;\n');
      write('backends/local/lock/f.ts', "import { e } from '../e.js';\nexport const f = e;\n");
      write('backends/etcd/g.ts', "import { f } from '../local/lock/f.js';\nexport const g = f;\n");
      const { problems } = (checkLayers as Check)(dir);
      assert.deepEqual(
        [...problems].sort(),
        [
          'model/a.ts (model) imports operators/b.ts (operators): a higher layer',
          'backends/lan/d.ts (backends/lan) imports backends/local/e.ts (backends/local): a peer group of the same layer',
          'import cycle: operators/b.ts <-> operators/c.ts',
          'backends/local/lock/f.ts (backends/local/lock) imports backends/local/e.ts (backends/local): a higher layer',
          'backends/etcd/g.ts (backends/etcd) imports backends/local/lock/f.ts (backends/local/lock): private to backends/local',
        ].sort(),
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
