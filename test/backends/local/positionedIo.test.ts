// preadSync and pwriteSync, through woolrx's addon: what fs.readSync and
// fs.writeSync with a position do, errors included, and never a byte outside
// the array they are given.
import assert from 'node:assert/strict';
import { closeSync, fstatSync, mkdtempSync, openSync, readFileSync, readSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { loadAddon } from '../../../src/backends/local/addon/loadAddon.js';
import { preadSync } from '../../../src/backends/local/addon/preadSync.js';
import { pwriteSync } from '../../../src/backends/local/addon/pwriteSync.js';
import { thrown, TMP } from './helpers.js';

const dir = mkdtempSync(join(TMP, 'woolrx-test-pio-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, content = ''): { path: string; fd: number } {
  const path = join(dir, name);
  const fd = openSync(path, 'w+');
  if (content !== '') writeSync(fd, content);
  return { path, fd };
}

describe('positioned I/O through the addon', () => {
  it('is the addon here (the fallback to fs is for platforms without one)', () => {
    assert.equal(typeof loadAddon().pread, 'function');
    assert.equal(typeof loadAddon().pwrite, 'function');
  });

  it('writes and reads at a position, into and from a range of the array, as fs does', () => {
    const { path, fd } = file('round-trip', 'abcdefghij');
    try {
      assert.equal(pwriteSync(fd, Buffer.from('..XYZ..'), 2, 3, 4), 3);
      assert.equal(readFileSync(path, 'latin1'), 'abcdXYZhij');
      const into = Buffer.alloc(8, '-');
      assert.equal(preadSync(fd, into, 1, 5, 3), 5);
      assert.equal(into.toString('latin1'), '-dXYZh--');
      // A plain Uint8Array, and a view that starts inside its buffer.
      const backing = new Uint8Array(16);
      const view = backing.subarray(4, 10);
      assert.equal(preadSync(fd, view, 2, 4, 0), 4);
      assert.deepEqual([...backing.subarray(0, 12)], [0, 0, 0, 0, 0, 0, 97, 98, 99, 100, 0, 0]);
      assert.equal(pwriteSync(fd, view, 2, 2, 8), 2);
      assert.equal(readFileSync(path, 'latin1'), 'abcdXYZhab');
    } finally {
      closeSync(fd);
    }
  });

  it('reads short at the end of the file and nothing past it; writes past it grow the file', () => {
    const { fd } = file('short', 'abc');
    try {
      const into = Buffer.alloc(8);
      assert.equal(preadSync(fd, into, 0, 8, 1), 2);
      assert.equal(preadSync(fd, into, 0, 8, 3), 0);
      assert.equal(preadSync(fd, into, 0, 8, 1_000), 0);
      assert.equal(preadSync(fd, into, 0, 0, 0), 0);
      // Past 4 GiB: positions are not 32-bit.
      const far = 2 ** 32 + 5;
      assert.equal(pwriteSync(fd, Buffer.from('far'), 0, 3, far), 3);
      assert.equal(fstatSync(fd).size, far + 3);
      assert.equal(preadSync(fd, into, 0, 8, far), 3);
      assert.equal(into.toString('latin1', 0, 3), 'far');
    } finally {
      closeSync(fd);
    }
  });

  it('fails as fs.readSync and fs.writeSync do: the same code, errno, syscall and message', () => {
    const { fd } = file('closed');
    closeSync(fd);
    const into = Buffer.alloc(4);
    for (const [ours, theirs] of [
      [() => preadSync(fd, into, 0, 4, 0), () => readSync(fd, into, 0, 4, 0)],
      [() => pwriteSync(fd, into, 0, 4, 0), () => writeSync(fd, into, 0, 4, 0)],
    ] as const) {
      const a = thrown(ours);
      const b = thrown(theirs);
      assert.ok(a instanceof Error);
      assert.deepEqual(
        { code: a.code, errno: a.errno, syscall: a.syscall, message: a.message },
        { code: b.code, errno: b.errno, syscall: b.syscall, message: b.message },
      );
    }
    const readOnly = openSync(join(dir, 'round-trip'), 'r');
    try {
      const error = thrown(() => pwriteSync(readOnly, into, 0, 4, 0));
      assert.equal(error.code, 'EBADF');
      assert.equal(error.syscall, 'write');
    } finally {
      closeSync(readOnly);
    }
  });

  it('refuses, with a TypeError, a range outside the array or a bad position, touching nothing', () => {
    const { path, fd } = file('guarded', 'abcdefgh');
    try {
      const array = Buffer.alloc(8, '-');
      const bad: [string, () => unknown][] = [
        ['a read past the array', () => preadSync(fd, array, 4, 5, 0)],
        ['a write past the array', () => pwriteSync(fd, array, 0, 9, 0)],
        ['a view read past its end', () => preadSync(fd, array.subarray(2, 4), 0, 3, 0)],
        ['a negative offset', () => preadSync(fd, array, -1, 2, 0)],
        ['a negative length', () => pwriteSync(fd, array, 0, -1, 0)],
        ['a negative position', () => preadSync(fd, array, 0, 2, -1)],
        ['a fractional position', () => pwriteSync(fd, array, 0, 2, 1.5)],
        ['a position past 2^53', () => preadSync(fd, array, 0, 2, 2 ** 54)],
        ['NaN for a position', () => preadSync(fd, array, 0, 2, Number.NaN)],
        ['a Float64Array', () => preadSync(fd, new Float64Array(2) as unknown as Uint8Array, 0, 2, 0)],
        ['a negative descriptor', () => preadSync(-1, array, 0, 2, 0)],
      ];
      for (const [what, run] of bad) {
        const error = thrown(run);
        assert.ok(error instanceof TypeError, `${what}: ${String(error)}`);
        assert.match(error.message, /^p(read|write)\(fd, (into|from), offset, length, position\)/, what);
      }
      assert.equal(array.toString('latin1'), '--------', 'the array is untouched');
      assert.equal(readFileSync(path, 'latin1'), 'abcdefgh', 'the file is untouched');
    } finally {
      closeSync(fd);
    }
  });
});
