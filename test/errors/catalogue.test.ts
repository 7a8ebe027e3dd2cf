// docs/errors.md is the catalogue users read: every WOOLRX_* code that src/
// can raise has its row there (code, class, when, what to do), and the
// catalogue names no code that src/ no longer has.
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';

function sources(dir: string): string[] {
  return readdirSync(dir, { recursive: true })
    .map(String)
    .filter((file) => file.endsWith('.ts') && !file.includes('generated'))
    .map((file) => join(dir, file));
}

describe('docs/errors.md', () => {
  it('lists every WOOLRX_* code raised in src/, and no other', () => {
    const inSource = new Set<string>();
    // (Environment variables, such as WOOLRX_ETCD_PASSWORD, are not error codes.)
    const ENV = new Set(['WOOLRX_ETCD_PASSWORD', 'WOOLRX_TEST']);
    for (const file of sources('src'))
      for (const match of readFileSync(file, 'utf8').matchAll(/'(WOOLRX_[A-Z_]+)'/g))
        if (!ENV.has(match[1] ?? '')) inSource.add(match[1] ?? '');
    const catalogue = readFileSync('docs/errors.md', 'utf8');
    const rows = new Set(
      [...catalogue.matchAll(/^\| `(WOOLRX_[A-Z_]+)` \| `(\w+)` \|/gm)].map((match) => match[1] ?? ''),
    );
    assert.ok(inSource.size >= 10, `only ${inSource.size} codes found in src/`);
    assert.deepEqual([...inSource].filter((code) => !rows.has(code)).sort(), [], 'codes without a catalogue row');
    assert.deepEqual(
      [...rows].filter((code) => !inSource.has(code)).sort(),
      [],
      'catalogue rows for codes src/ does not raise',
    );
  });
});
