// statIds through woolrx's addon: the device, inode, link count, size, mode
// and owner fs.statSync and fs.fstatSync give, the same errors, and "nothing there"
// where statSync's throwIfNoEntry: false says so.
import assert from 'node:assert/strict';
import {
  closeSync,
  constants,
  fstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  rmSync,
  statSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { loadAddon } from '../../../src/backends/local/addon/loadAddon.js';
import {
  STAT_DEV,
  STAT_INO,
  STAT_MODE,
  STAT_NLINK,
  STAT_SIZE,
  STAT_UID,
  statIds,
} from '../../../src/backends/local/addon/statIds.js';
import { thrown, TMP } from './helpers.js';

const dirs = [mkdtempSync(join(TMP, 'woolrx-test-stat-')), mkdtempSync('/dev/shm/woolrx-test-stat-')];
after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function figures(stats: {
  dev: number;
  ino: number;
  nlink: number;
  size: number;
  mode: number;
  uid: number;
}): number[] {
  return [stats.dev, stats.ino, stats.nlink, stats.size, stats.mode, stats.uid];
}

describe('statIds', () => {
  it('goes through the addon here', () => {
    assert.equal(typeof loadAddon().statx, 'function');
  });

  it('gives what statSync and fstatSync give, on the temp directory and on /dev/shm', () => {
    for (const dir of dirs) {
      const path = join(dir, 'file');
      writeFileSync(path, 'twelve bytes');
      assert.deepEqual([...(statIds(path) ?? [])], figures(statSync(path)), `${path} by path`);
      const fd = openSync(path, 'r');
      try {
        const byFd = statIds(fd);
        assert.deepEqual([...(byFd ?? [])], figures(fstatSync(fd)), `${path} by descriptor`);
        assert.equal(byFd?.[STAT_SIZE], 12);
        assert.equal((byFd?.[STAT_MODE] ?? 0) & constants.S_IFMT, constants.S_IFREG);
        assert.equal(byFd?.[STAT_UID], process.geteuid?.());
        // Unlinked while open: the descriptor's link count drops to 0.
        unlinkSync(path);
        const unlinked = statIds(fd);
        assert.equal(unlinked?.[STAT_NLINK], 0);
        assert.deepEqual([...(unlinked ?? [])], figures(fstatSync(fd)));
      } finally {
        closeSync(fd);
      }
      // A directory, and a link followed to it.
      const sub = join(dir, 'sub');
      mkdirSync(sub);
      symlinkSync(sub, join(dir, 'link'));
      const linked = statIds(join(dir, 'link'));
      assert.deepEqual([...(linked ?? [])], figures(statSync(sub)));
      assert.notEqual(linked?.[STAT_DEV], 0);
      assert.notEqual(linked?.[STAT_INO], 0);
    }
  });

  it('says nothing is there where statSync(…, { throwIfNoEntry: false }) does', () => {
    const [dir = TMP] = dirs;
    const missing = join(dir, 'missing');
    assert.equal(statSync(missing, { throwIfNoEntry: false }), undefined);
    assert.equal(statIds(missing), undefined);
  });

  it('fails as statSync and fstatSync do: the same code, errno, syscall and message', () => {
    const [dir = TMP] = dirs;
    const loop = join(dir, 'loop');
    symlinkSync(loop, loop);
    writeFileSync(join(dir, 'plain'), '');
    const fd = openSync(join(dir, 'plain'), 'r');
    closeSync(fd);
    const belowAFile = join(dir, 'plain', 'below-a-file');
    for (const [ours, theirs] of [
      [() => statIds(loop), () => statSync(loop)],
      [() => statIds(belowAFile), () => statSync(belowAFile, { throwIfNoEntry: false })],
      [() => statIds(fd), () => fstatSync(fd)],
    ] as const) {
      const a = thrown(ours);
      const b = thrown(theirs);
      assert.deepEqual(
        { code: a.code, errno: a.errno, syscall: a.syscall, message: a.message, path: a.path },
        { code: b.code, errno: b.errno, syscall: b.syscall, message: b.message, path: b.path },
      );
    }
  });

  it("the addon's statx refuses, with a TypeError, an array that cannot take the figures", () => {
    const [dir = TMP] = dirs;
    for (const into of [new Float64Array(5), new Uint8Array(32) as unknown as Float64Array]) {
      const error = thrown(() => loadAddon().statx(-1, dir, into));
      assert.ok(error instanceof TypeError, String(error));
      assert.match(error.message, /^statx\(fd, path, into\)/);
    }
  });
});
