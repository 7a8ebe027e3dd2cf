// writerBusy: whether a woolrx writer holds the namespace lock, asked by a
// subscriber about a journal record the segment does not show. Real lock
// files and real flock(2) locks (held through another descriptor, as a
// publisher in another process would).
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { FileLock } from '../../../src/backends/local/lock/FileLock.js';
import { writerBusy } from '../../../src/backends/local/lock/namespaceLock.js';

const dir = mkdtempSync(join(tmpdir(), 'woolrx-writer-busy-'));
after(() => rmSync(dir, { recursive: true, force: true }));

describe('writerBusy', () => {
  it('true while another descriptor holds the lock, false once it is released', () => {
    const path = join(dir, 'lock');
    writeFileSync(path, '', { mode: 0o600 });
    const holder = new FileLock(path, undefined, true);
    try {
      assert.equal(writerBusy(path), false, 'nobody holds it');
      assert.equal(holder.tryLock(), true);
      assert.equal(writerBusy(path), true, 'a writer holds it');
      assert.equal(writerBusy(path), true, 'asking took nothing away from the holder');
      holder.unlock();
      assert.equal(writerBusy(path), false);
      // Asking leaves no lock behind: a writer takes it at once.
      assert.equal(holder.tryLock(), true);
    } finally {
      holder.close();
    }
  });

  it('false when it cannot tell: no lock file, a symbolic link, a file others can write', () => {
    assert.equal(writerBusy(join(dir, 'missing')), false);
    const target = join(dir, 'target');
    writeFileSync(target, '', { mode: 0o600 });
    const link = join(dir, 'link');
    symlinkSync(target, link);
    const holder = new FileLock(target, undefined, true);
    try {
      assert.equal(holder.tryLock(), true);
      assert.equal(writerBusy(link), false, 'never through a symbolic link');
      const open = join(dir, 'open');
      writeFileSync(open, '');
      chmodSync(open, 0o666);
      assert.equal(writerBusy(open), false, 'not a file others can write');
    } finally {
      holder.close();
    }
  });
});
