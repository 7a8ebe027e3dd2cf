import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { uniqueNamespace } from '../backends/local/helpers.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, '..', '..');

/** System calls that touch files (what a publish is made of); the rest (memory, the event loop, signals) is left out. */
const FILE_CALLS = new Set(['flock', 'statx', 'newfstatat', 'fstat', 'stat', 'lstat', 'openat', 'open', 'close', 'pread64', 'pwrite64', 'read', 'write', 'unlink', 'unlinkat', 'rename', 'renameat2', 'ftruncate', 'fsync', 'fdatasync', 'mkdir', 'mkdirat', 'fchmod']);

/**
 * The names of the file system calls the main thread of `node --import tsx <args>` made between a stat
 * of `trace-start` and one of `trace-end` (strace without -f: the main thread only, where synchronous
 * file calls run). Reads and writes of descriptors 0-2 are left out.
 */
function traced(args: string[]): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'woolrx-trace-'));
  const out = join(dir, 'trace');
  try {
    const run = spawnSync('strace', ['-qq', '-o', out, process.execPath, '--import', 'tsx', ...args], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
    assert.equal(run.status, 0, `strace ${args.join(' ')} failed: ${run.error?.message ?? ''}${run.stderr}`);
    const lines = readFileSync(out, 'utf8').split('\n');
    const start = lines.findIndex((line) => line.includes('trace-start'));
    const end = lines.findIndex((line) => line.includes('trace-end'));
    assert.ok(start >= 0 && end > start, 'both markers are in the trace');
    return lines
      .slice(start + 1, end)
      .map((line) => /^(\w+)\((\d+)?/.exec(line))
      .filter((match): match is RegExpExecArray => match !== null && FILE_CALLS.has(match[1] ?? ''))
      .filter((match) => !((match[1] === 'read' || match[1] === 'write') && Number(match[2]) <= 2))
      .map((match) => match[1] ?? '');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('the bulk floor (bench/local/bareProcess.ts)', () => {
  it('makes the very system calls of a woolrx add, in its order', () => {
    const namespace = uniqueNamespace('floor');
    const markers = mkdtempSync(join(tmpdir(), 'woolrx-trace-markers-'));
    const shm = mkdtempSync('/dev/shm/woolrx-test-bare-');
    const tmp = mkdtempSync(join(tmpdir(), 'woolrx-test-bare-'));
    try {
      // Two adds each, after five untimed ones: the second shows a steady state.
      const woolrx = traced(['test/bench/children/tracedPublish.ts', namespace, markers, '2', '5']);
      const bare = traced(['bench/local/bareProcess.ts', shm, join(tmp, 'lock'), join(tmp, 'notify'), '2', '16', '0', '5']);
      assert.ok(woolrx.length >= 30, `a woolrx add makes file system calls (${woolrx.join(' ')})`);
      assert.deepEqual(
        bare,
        woolrx,
        'the floor must make the system calls a woolrx add makes: when the publish path changes, change bench/local/bareProcess.ts with it',
      );
    } finally {
      for (const dir of [markers, shm, tmp]) rmSync(dir, { recursive: true, force: true });
    }
  });
});
