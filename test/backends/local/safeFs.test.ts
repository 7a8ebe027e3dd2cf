// openSafe: what it opens and what it refuses, checked on the figures of
// the addon's statx (no Stats object per open). Runs as root, as CI does:
// another user's file is made with chown.
import assert from 'node:assert/strict';
import {
  chmodSync,
  chownSync,
  closeSync,
  constants,
  fstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { UnsafeObjectError } from '../../../src/backends/local/safe-fs/UnsafeObjectError.js';
import { assertSafe, openSafe } from '../../../src/backends/local/safe-fs/safeFs.js';
import { thrown } from './helpers.js';

const dir = mkdtempSync('/dev/shm/woolrx-test-safefs-');
after(() => rmSync(dir, { recursive: true, force: true }));

const openFds = (): number => readdirSync('/proc/self/fd').length;

function refused(path: string, flags: number, why: RegExp): UnsafeObjectError {
  const before = openFds();
  const error = thrown(() => openSafe(path, flags));
  assert.ok(error instanceof UnsafeObjectError, `${path}: ${String(error)}`);
  assert.match(error.message, why);
  assert.ok(error.message.includes(path), error.message);
  assert.equal(openFds(), before, 'a refused object leaves no descriptor open');
  return error;
}

describe('openSafe', () => {
  it("opens this user's file, with the fstat figures fs gives", () => {
    const path = join(dir, 'mine');
    writeFileSync(path, 'seventeen bytes!!', { mode: 0o600 });
    const file = openSafe(path, constants.O_RDONLY);
    try {
      const stats = fstatSync(file.fd);
      assert.deepEqual(
        { dev: file.dev, ino: file.ino, size: file.size },
        { dev: stats.dev, ino: stats.ino, size: stats.size },
      );
      assert.equal(file.size, 17);
    } finally {
      closeSync(file.fd);
    }
  });

  it('refuses a symbolic link, a directory, a file others can write and a file of another user', () => {
    const target = join(dir, 'target');
    writeFileSync(target, '', { mode: 0o600 });
    symlinkSync(target, join(dir, 'link'));
    refused(join(dir, 'link'), constants.O_RDONLY, /symbolic link/);

    mkdirSync(join(dir, 'sub'), { mode: 0o700 });
    refused(join(dir, 'sub'), constants.O_RDONLY, /not a file/);

    const shared = join(dir, 'group-writable');
    writeFileSync(shared, '');
    chmodSync(shared, 0o620);
    const error = refused(shared, constants.O_RDONLY, /other than its owner can write/);
    assert.equal(error.mode & 0o777, 0o620);

    const theirs = join(dir, 'theirs');
    writeFileSync(theirs, '', { mode: 0o600 });
    chownSync(theirs, 65534, 65534);
    const other = refused(theirs, constants.O_RDONLY, /belongs to uid 65534/);
    assert.equal(other.owner, 65534);
  });

  it('throws the errors of open(2) as fs does (ENOENT, EEXIST)', () => {
    assert.equal(thrown(() => openSafe(join(dir, 'missing'), constants.O_RDONLY)).code, 'ENOENT');
    const path = join(dir, 'exists');
    writeFileSync(path, '', { mode: 0o600 });
    assert.equal(thrown(() => openSafe(path, constants.O_RDWR | constants.O_CREAT | constants.O_EXCL)).code, 'EEXIST');
  });
});

describe('assertSafe', () => {
  it('takes the file type from the mode bits', () => {
    const euid = process.geteuid?.() ?? 0;
    assertSafe('/x', 'file', constants.S_IFREG | 0o600, euid);
    assertSafe('/x', 'directory', constants.S_IFDIR | 0o700, euid);
    assert.throws(() => assertSafe('/x', 'file', constants.S_IFDIR | 0o700, euid), /not a file/);
    assert.throws(() => assertSafe('/x', 'directory', constants.S_IFLNK | 0o777, euid), /symbolic link/);
    assert.throws(() => assertSafe('/x', 'file', constants.S_IFIFO | 0o600, euid), /not a file/);
  });
});
