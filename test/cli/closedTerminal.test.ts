import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Child, cliMain, repoRoot, residue, sweep, uniqueNamespace, woolrx } from './children.js';

// The terminal goes away under a running command, as when its tmux server
// is killed or its window closed: `woolrx` runs as the session leader of a
// real pseudo-terminal (terminal_hangup.py), which is then hung up. The
// kernel sends SIGHUP, and every later write to the terminal (stdout and
// stderr) fails with EIO. The command must withdraw, clean up and exit 0:
// not die of an unhandled 'error' event, nor of Node's abort when it
// cannot restore the terminal's settings at exit.

const hangup = join(repoRoot, 'test/cli/terminal_hangup.py');

const used: { namespace: string; uids: string[] }[] = [];
const started: Child[] = [];
after(async () => {
  for (const child of started) await child.stop('SIGKILL', 5000);
  for (const pid of demoWorkers(undefined).map(({ pid }) => pid)) process.kill(pid, 'SIGKILL');
  const left: string[] = [];
  for (const { namespace, uids } of used) left.push(...sweep(namespace, uids));
  assert.deepEqual(left, [], 'objects, locks or notification files left behind');
});

function namespace(label: string): { namespace: string; uids: string[] } {
  const entry = { namespace: uniqueNamespace(`hangup-${label}`), uids: [] };
  used.push(entry);
  return entry;
}

/** `woolrx <args>` on a terminal of its own; `hangUp()` takes the terminal away. */
class OnTerminal {
  readonly child: Child;
  screen = '';

  constructor(args: readonly string[]) {
    this.child = new Child('python3', [hangup, process.execPath, '--import', 'tsx', cliMain, ...args]);
    started.push(this.child);
    this.child.process.stdout.on('data', (chunk: Buffer) => {
      this.screen += chunk.toString('utf8');
    });
  }

  /** Waits until the terminal shows `text`. */
  async shows(text: string, timeout = 30_000): Promise<void> {
    const deadline = Date.now() + timeout;
    while (!this.screen.includes(text)) {
      if (Date.now() > deadline)
        throw new Error(`the terminal never showed ${JSON.stringify(text)}; it shows:\n${this.screen.slice(-2000)}`);
      if (this.child.process.exitCode !== null) throw new Error(`the harness ended: ${this.child.stderr}`);
      await sleep(25);
    }
  }

  /** Hangs the terminal up; resolves with how the command ended. */
  async hangUp(): Promise<{ code: number | null; signal: string | null }> {
    this.child.process.stdin.end('\n');
    let timer: NodeJS.Timeout | undefined;
    const exit = await Promise.race([
      this.child.exited,
      new Promise((resolve) => {
        timer = setTimeout(() => resolve('still running'), 30_000);
      }),
    ]);
    clearTimeout(timer);
    assert.deepEqual(exit, { code: 0, signal: null }, `the hang-up harness: ${this.child.stderr}`);
    const last = this.child.stderr.trim().split('\n').at(-1) ?? '';
    return JSON.parse(last) as { code: number | null; signal: string | null };
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** The demo's worker processes (of one namespace, or of any), read from /proc. */
function demoWorkers(ns: string | undefined): { pid: number; uid: string }[] {
  const found: { pid: number; uid: string }[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let argv: string[];
    try {
      argv = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
    } catch {
      continue;
    }
    const spec = argv[argv.indexOf('--as-worker') + 1];
    const namespaceArg = argv[argv.indexOf('--namespace') + 1];
    if (!argv.includes('--as-worker') || spec === undefined || !argv.includes(cliMain)) continue;
    if (ns !== undefined && namespaceArg !== ns) continue;
    if (ns === undefined && !used.some((entry) => entry.namespace === namespaceArg)) continue;
    found.push({ pid: Number(entry), uid: (JSON.parse(spec) as { uid: string }).uid });
  }
  return found;
}

describe('woolrx on a terminal that goes away (tmux killed, window closed)', () => {
  it('publish: withdraws its worker, removes what it made and exits 0', async () => {
    for (const delay of [0, 40, 300]) {
      const entry = namespace('publish');
      const uid = randomUUID();
      entry.uids.push(uid);
      const terminal = new OnTerminal(['publish', '-n', entry.namespace, '-a', '127.0.0.1:7001', '--uid', uid]);
      await terminal.shows(uid);
      await sleep(delay);
      assert.deepEqual(await terminal.hangUp(), { code: 0, signal: null }, `hung up ${delay} ms after the uid`);
      assert.deepEqual(residue(entry.namespace, entry.uids), [], `hung up ${delay} ms after the uid`);
    }
  });

  it('watch (live table, and --json): unsubscribes, removes its lock folder and exits 0', async () => {
    const entry = namespace('watch');
    const uid = randomUUID();
    entry.uids.push(uid);
    const publisher = woolrx(['publish', '-n', entry.namespace, '-a', '127.0.0.1:7002', '--uid', uid]);
    started.push(publisher);
    assert.equal(await publisher.line(), uid);
    for (const [args, delay] of [
      [[], 0],
      [[], 500],
      [['--json'], 0],
      [['--json'], 300],
    ] as const) {
      const terminal = new OnTerminal(['watch', '-n', entry.namespace, ...args]);
      await terminal.shows(uid.slice(0, 8));
      await sleep(delay);
      assert.deepEqual(await terminal.hangUp(), { code: 0, signal: null }, `watch ${args.join(' ')}, ${delay} ms`);
    }
    assert.deepEqual(await publisher.stop('SIGTERM'), { code: 0, signal: null });
    assert.equal(publisher.stderr, '');
    assert.deepEqual(residue(entry.namespace, entry.uids), []);
  });

  it("dashboard, with a page watching: closes the page's subscription and its server, and exits 0", async () => {
    const entry = namespace('dashboard');
    const uid = randomUUID();
    entry.uids.push(uid);
    const publisher = woolrx(['publish', '-n', entry.namespace, '-a', '127.0.0.1:7003', '--uid', uid]);
    started.push(publisher);
    assert.equal(await publisher.line(), uid);
    const terminal = new OnTerminal(['dashboard', '-n', entry.namespace, '--port', '0']);
    await terminal.shows('http://');
    const url = /http:\/\/[^\s]+/.exec(terminal.screen)?.[0] ?? '';
    const page = new AbortController();
    const response = await fetch(new URL('events', url), { signal: page.signal });
    assert.ok(response.body !== null);
    const reader = response.body.getReader() as ReadableStreamDefaultReader<Uint8Array>;
    let seen = '';
    while (!seen.includes(uid)) {
      const chunk = await reader.read();
      if (chunk.done) break;
      seen += new TextDecoder().decode(chunk.value);
    }
    assert.ok(seen.includes(uid), 'the page sees the worker');
    try {
      assert.deepEqual(await terminal.hangUp(), { code: 0, signal: null });
    } finally {
      page.abort();
    }
    assert.deepEqual(await publisher.stop('SIGTERM'), { code: 0, signal: null });
    assert.deepEqual(residue(entry.namespace, entry.uids), []);
  });

  it('demo: stops its worker processes, removes the namespace and exits 0, wherever in the scenario', async () => {
    // Hung up while the workers start, once they are live, just after one is
    // killed (before it is seen dropped), and once the replacement runs.
    for (const moment of ['started worker', 'update', 'SIGKILL worker', 'replacement worker']) {
      const entry = namespace('demo');
      const terminal = new OnTerminal(['demo', '-n', entry.namespace, '--workers', '3', '--duration', '60']);
      // Every worker's uid, the killed one's too, for the check of its block.
      const uids = new Set<string>();
      const look = setInterval(() => {
        for (const { uid } of demoWorkers(entry.namespace)) uids.add(uid);
      }, 20);
      try {
        await terminal.shows(moment);
      } finally {
        clearInterval(look);
        for (const { uid } of demoWorkers(entry.namespace)) uids.add(uid);
        entry.uids.push(...uids);
      }
      assert.deepEqual(await terminal.hangUp(), { code: 0, signal: null }, `hung up at "${moment}"`);
      assert.deepEqual(demoWorkers(entry.namespace), [], `worker processes left running (hung up at "${moment}")`);
      assert.deepEqual(residue(entry.namespace, entry.uids), [], `hung up at "${moment}"`);
    }
  });
});
