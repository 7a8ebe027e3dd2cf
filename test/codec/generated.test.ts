import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
const committed = join(root, 'src/codec/generated');

describe('generated protobuf code', () => {
  it('is up to date with proto/woolrx.proto (else run: node scripts/gen-proto.mjs)', () => {
    const out = mkdtempSync(join(tmpdir(), 'woolrx-gen-'));
    try {
      const run = spawnSync(process.execPath, [join(root, 'scripts/gen-proto.mjs'), '--out', out], {
        cwd: root,
        encoding: 'utf8',
      });
      assert.equal(run.status, 0, run.stderr);
      for (const file of ['woolrx.js', 'woolrx.d.ts']) {
        assert.equal(
          readFileSync(join(committed, file), 'utf8'),
          readFileSync(join(out, file), 'utf8'),
          `src/codec/generated/${file} is stale: run node scripts/gen-proto.mjs`,
        );
      }
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });

  it('is static: no new Function / eval, so it runs under a strict Content-Security-Policy', () => {
    const code = readFileSync(join(committed, 'woolrx.js'), 'utf8');
    assert.doesNotMatch(code, /\bnew Function\b|\bFunction\(|\beval\(/);
    assert.match(code, /from "protobufjs\/minimal\.js"/);
  });
});
