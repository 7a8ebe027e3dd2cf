import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { bareNamespace } from '../../bench/local/bareNamespace.js';
import { uniqueNamespace } from '../backends/local/helpers.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, '..', '..');

/**
 * System calls that touch files (what a publish is made of); the rest (memory, the event loop, signals) is
 * left out — plain `read` and `write` too: a publish reads and writes at positions (`pread64`, `pwrite64`),
 * and the event loop's turn at the end of a traced burst reads and writes its own descriptors.
 */
const FILE_CALLS = new Set([
  'flock',
  'fcntl',
  'statx',
  'newfstatat',
  'fstat',
  'stat',
  'lstat',
  'openat',
  'open',
  'close',
  'pread64',
  'pwrite64',
  'unlink',
  'unlinkat',
  'rename',
  'renameat2',
  'ftruncate',
  'fsync',
  'fdatasync',
  'mkdir',
  'mkdirat',
  'fchmod',
]);

/** The calls that take, keep and release the lock, and read what a lock taken afresh must read again. */
const LOCK_CALLS = ['flock', 'fcntl', 'statx', 'pread64'];

/**
 * The names of the file system calls the main thread of `node --import tsx <args>` made between a stat
 * of `trace-start` and one of `trace-end`, one list per add (each add follows a stat of `trace-add`, or
 * of `split`). Every file call (strace without -f: the main thread only, where synchronous file calls
 * run; reads and writes left out), or with `only`, those calls alone: then the others run
 * untraced (seccomp), so that an add takes a fraction of the time and a lock can be kept across adds.
 * With `reads`, an inotify read that brings an event of `notify` is listed as `wake`, and each `pread64`
 * with its length (`pread64:24`).
 */
function traced(
  args: string[],
  only?: readonly string[],
  split = 'trace-add',
  reads = false,
): { adds: string[][]; turn: string[] } {
  const dir = mkdtempSync(join(tmpdir(), 'woolrx-trace-'));
  const out = join(dir, 'trace');
  try {
    // --seccomp-bpf needs -f, which traces every thread: the main one's lines start with the process's pid.
    const options = only === undefined ? ['-qq'] : ['-qq', '-f', '--seccomp-bpf', '-e', `trace=${only.join(',')}`];
    const run = spawnSync('strace', [...options, '-o', out, process.execPath, '--import', 'tsx', ...args], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 60_000,
    });
    assert.equal(run.status, 0, `strace ${args.join(' ')} failed: ${run.error?.message ?? ''}${run.stderr}`);
    const lines = readFileSync(out, 'utf8').split('\n');
    const start = lines.findIndex((line) => line.includes('trace-start'));
    const end = lines.findIndex((line) => line.includes('trace-end'));
    assert.ok(start >= 0 && end > start, 'both markers are in the trace');
    // The markers are stat'ed by the main thread.
    const main = only === undefined ? '' : `${/^(\d+) /.exec(lines[start] ?? '')?.[1] ?? 'none'} `;
    const adds: string[][] = [];
    /** What follows a stat of `trace-turn`: the turn of the event loop after the last add. */
    const turn: string[] = [];
    let current: string[] | undefined;
    for (const line of lines.slice(start + 1, end)) {
      if (!line.startsWith(main)) continue;
      if (line.includes(split) || line.includes('trace-turn')) {
        current = line.includes('trace-turn') ? turn : [];
        if (current !== turn) adds.push(current);
        continue;
      }
      const match = /^(\w+)\((\d+)?(, "woolrx:)?/.exec(line.slice(main.length).trimStart());
      const call = match?.[1] ?? '';
      if (reads && call === 'read' && line.includes('notify\\0')) current?.push('wake');
      if (!FILE_CALLS.has(call)) continue;
      if (reads && call === 'pread64') {
        current?.push(`pread64:${/, (\d+), \d+\) += /.exec(line)?.[1] ?? '?'}`);
        continue;
      }
      // A write of the notification file's marker: a notification (see assertKinds).
      current?.push(call === 'pwrite64' && match?.[3] !== undefined ? 'notify' : call);
    }
    return { adds, turn };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Asserts that each woolrx add made the calls of one of the floor's kinds of
 * add, notifications aside: an add under a kept lock owes its notification
 * until the lock is released, so how many an add sends depends on the burst
 * it ends; both send one per add in all.
 */
function assertKinds(woolrx: { adds: string[][]; turn: string[] }, bare: { adds: string[][]; turn: string[] }): void {
  assert.equal(bare.adds.length, 4, 'four kinds of bare add traced');
  for (const [who, { adds, turn }] of [
    ['woolrx', woolrx],
    ['the floor', bare],
  ] as const) {
    const calls = [...adds.flat(), ...turn];
    const notifications = calls.filter((call) => call === 'notify').length;
    if (calls.includes('pwrite64')) assert.equal(notifications, adds.length, `${who}: one notification per add`);
  }
  // The turn after woolrx's last add may release its lock (the intent
  // record cleared, both flocks let go, the notifications owed): nothing else.
  assert.match(
    woolrx.turn.join(' '),
    /^((pwrite64 )?flock flock( notify)*)?$/,
    'the turn after the last add only releases the lock',
  );
  const kinds = new Set(bare.adds.map(strip));
  assert.equal(kinds.size, 4, `the four kinds differ (${[...kinds].join(' | ')})`);
  for (const [i, calls] of woolrx.adds.entries()) {
    assert.ok(
      kinds.has(strip(calls)),
      `woolrx add ${i} (${calls.join(' ')}) is none of the floor's kinds of add (${[...kinds].join(' | ')}): ` +
        'when the publish path changes, change bench/local/bareProcess.ts with it',
    );
  }
}

/** An add's calls, notifications aside. */
function strip(calls: readonly string[]): string {
  return calls.filter((call) => call !== 'notify').join(' ');
}

describe('the bulk floor (bench/local/bareProcess.ts)', () => {
  const namespace = uniqueNamespace('floor');
  /** Traces `count` woolrx adds after five untimed ones (a steady state), and the floor's adds of each kind. */
  function trace(
    count: number,
    only?: readonly string[],
  ): { woolrx: ReturnType<typeof traced>; bare: ReturnType<typeof traced> } {
    const markers = mkdtempSync(join(tmpdir(), 'woolrx-trace-markers-'));
    const shm = mkdtempSync('/dev/shm/woolrx-test-bare-');
    const tmp = mkdtempSync(join(tmpdir(), 'woolrx-test-bare-'));
    try {
      const woolrx = traced(['test/bench/children/tracedPublish.ts', namespace, markers, String(count), '5'], only);
      // The lock taken afresh then kept, kept and kept again, kept then released, taken afresh and released.
      const bare = traced(
        ['bench/local/bareProcess.ts', shm, join(tmp, 'lock'), join(tmp, 'notify'), '2', '16', '0', '5'],
        only,
      );
      assert.equal(woolrx.adds.length, count, `${count} woolrx adds traced`);
      return { woolrx, bare };
    } finally {
      for (const dir of [markers, shm, tmp]) rmSync(dir, { recursive: true, force: true });
    }
  }

  it('makes the very file system calls of a woolrx add, in its order', () => {
    const { woolrx, bare } = trace(4);
    for (const calls of woolrx.adds)
      assert.ok(calls.length >= 12, `a woolrx add makes file system calls (${calls.join(' ')})`);
    assertKinds(woolrx, bare);
  });

  it('takes, keeps and releases the lock as woolrx does across a burst of adds', () => {
    // Traced alone, these calls leave the adds fast enough for the lock to
    // be kept across some (a lock taken afresh begins with a flock); on a
    // loaded machine not in every burst, hence several tries.
    let kept = 0;
    for (let attempt = 0; attempt < 8 && kept === 0; attempt += 1) {
      const { woolrx, bare } = trace(12, LOCK_CALLS);
      assertKinds(woolrx, bare);
      kept = woolrx.adds.filter((calls) => calls[0] !== 'flock').length;
    }
    assert.ok(kept > 0, 'some woolrx add of a burst ran under the lock kept from the one before');
  });
});

describe('the lone-add floor (bench/local/bareProcess.ts lone adds, bench/local/bareSubscriberProcess.ts)', () => {
  it('makes the very file system calls of a woolrx lone add, in its order, notification included', () => {
    const namespace = uniqueNamespace('lone');
    const markers = mkdtempSync(join(tmpdir(), 'woolrx-trace-markers-'));
    const shm = mkdtempSync('/dev/shm/woolrx-test-bare-');
    const tmp = mkdtempSync(join(tmpdir(), 'woolrx-test-bare-'));
    try {
      // Paced 2 ms apart, as the latency row paces its adds: each takes the lock afresh and releases it.
      const woolrx = traced(['test/bench/children/tracedPublish.ts', namespace, markers, '3', '5', '2']);
      const bare = traced([
        'bench/local/bareProcess.ts',
        shm,
        join(tmp, 'lock'),
        join(tmp, 'notify'),
        '2',
        '16',
        '0',
        '5',
        'lone:0',
      ]);
      assert.equal(woolrx.adds.length, 3, 'three woolrx adds traced');
      assert.equal(bare.adds.length, 4, 'four bare lone adds traced');
      const lone = bare.adds[0]?.join(' ') ?? '';
      assert.match(lone, /^flock .* notify$/, 'a bare lone add takes the lock and ends with its notification');
      for (const calls of bare.adds) assert.equal(calls.join(' '), lone, 'every bare lone add makes the same calls');
      for (const [i, calls] of woolrx.adds.entries()) {
        assert.equal(
          calls.join(' '),
          lone,
          `woolrx lone add ${i}: when the publish path changes, change bench/local/bareProcess.ts with it`,
        );
      }
      assert.deepEqual(woolrx.turn, [], 'a lone add leaves nothing for the next turn');
    } finally {
      for (const dir of [markers, shm, tmp]) rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reads, per lone add, what a woolrx subscriber reads: the wake-up, the journal head, the record, the head, the slot', () => {
    const namespace = uniqueNamespace('lone-sub');
    const markers = mkdtempSync(join(tmpdir(), 'woolrx-trace-markers-'));
    try {
      const woolrx = traced(
        ['test/bench/children/tracedSubscribe.ts', namespace, markers, '3', '5'],
        undefined,
        'trace-event',
        true,
      );
      assert.equal(woolrx.adds.length, 3, 'three woolrx events traced');
      const reads = woolrx.adds[0]?.join(' ') ?? '';
      assert.match(
        reads,
        /^wake pread64:24 pread64:\d+ pread64:24 pread64:16$/,
        `a woolrx subscriber's reads for one event (${reads})`,
      );
      for (const calls of woolrx.adds) assert.equal(calls.join(' '), reads, 'each woolrx event is read alike');
      const ns = bareNamespace(16);
      try {
        const bare = traced(
          ['bench/local/bareSubscriberProcess.ts', ns.dir, ns.notify, '3', '5', '16', markers],
          undefined,
          'trace-event',
          true,
        );
        assert.equal(bare.adds.length, 3, 'three bare events traced');
        for (const [i, calls] of bare.adds.entries()) {
          assert.equal(
            calls.join(' '),
            reads,
            `bare event ${i}: when the subscriber's reads change, change bench/local/bareSubscriberProcess.ts with them`,
          );
        }
      } finally {
        ns.remove();
      }
    } finally {
      rmSync(markers, { recursive: true, force: true });
    }
  });
});
