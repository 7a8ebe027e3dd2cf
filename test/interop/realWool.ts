/**
 * The real wool (Python, `../shared/wool-peer`, or `$WOOL_PEER`) as a test
 * peer: `realwool_peer.py` run through the peer's `python` wrapper, driven
 * over stdin/stdout JSON lines (see the script's docstring). Every peer
 * started here is bounded: its commands time out, and `killRealWool()`
 * (call it in `after`) SIGKILLs by pid whatever still runs.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DiscoveryEventType } from '../../src/events/types.js';
import type { WorkerInfo } from '../../src/model/types.js';
import { Agent, type Report } from '../backends/lan/agent.js';
import type { Netns } from '../backends/lan/netns.js';
import { repoRoot } from '../cli/children.js';

/** Where the real wool is: `$WOOL_PEER`, else `<repo>/../shared/wool-peer`. */
export const WOOL_PEER_DIR = resolve(process.env['WOOL_PEER'] ?? join(repoRoot, '..', 'shared', 'wool-peer'));
/** The peer's wrapper: python3 with `import wool` working. */
export const WOOL_PYTHON = join(WOOL_PEER_DIR, 'python');
/** The peer script (drives wool's own LocalDiscovery / LanDiscovery). */
export const REALWOOL_PEER = fileURLToPath(new URL('./realwool_peer.py', import.meta.url));

let checked = false;

/**
 * Fails (never skips) when the real wool cannot be run: these tests exist to
 * show interop with it, so its absence is a failure with a message saying
 * what to install.
 */
export function assertRealWool(): void {
  if (checked) return;
  assert.ok(
    existsSync(WOOL_PYTHON),
    `the real wool peer is missing: no ${WOOL_PYTHON}. Put wool-peer at ../shared/wool-peer beside the repository, or set WOOL_PEER to its directory.`,
  );
  const probe = spawnSync(WOOL_PYTHON, ['-c', 'import wool.runtime.discovery.local, wool.runtime.discovery.lan'], {
    encoding: 'utf8',
    timeout: 30_000,
  });
  assert.equal(
    probe.status,
    0,
    `the real wool peer at ${WOOL_PEER_DIR} does not import (install its Debian packages: ` +
      `apt-get install -y $(cat ${join(WOOL_PEER_DIR, 'debian-packages.txt')}); .ci/run does): ${probe.stderr || probe.error?.message || ''}`,
  );
  checked = true;
}

const running = new Set<ChildProcess>();

/** SIGKILLs (by pid) every real-wool peer still running. */
export function killRealWool(): void {
  for (const child of running) {
    if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) {
      try {
        process.kill(child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }
}

/**
 * Where a peer may run instead of this process's own namespaces: a
 * {@link Netns}, or a "host" of test/relay/hosts.ts (its own network and
 * mount namespaces).
 */
export type Spawner = Pick<Netns, 'spawn'>;

/** A worker as wool reports it: WorkerInfo's JSON shape. */
export type WoolWorker = WorkerInfo;

/** One running real-wool process (a `LocalDiscovery` or `LanDiscovery` of one namespace). */
export class RealWool {
  readonly agent: Agent;
  readonly pid: number;

  private constructor(agent: Agent, pid: number) {
    this.agent = agent;
    this.pid = pid;
  }

  /**
   * Starts the peer: `local` enters wool's `LocalDiscovery(namespace,
   * capacity)` (creating the segment when absent; with `lazy`, at the first
   * publish or subscribe); `lan` makes a
   * `LanDiscovery(namespace)`, run inside `netns` (mDNS never leaves a
   * namespace the test made; a local peer may run in one too, e.g. a
   * two-hosts test's host with its own `/dev/shm`).
   */
  static async start(
    backend: 'local' | 'lan',
    namespace: string,
    options: { capacity?: number; netns?: Spawner; lazy?: boolean } = {},
  ): Promise<RealWool> {
    assertRealWool();
    const args = [
      REALWOOL_PEER,
      backend,
      namespace,
      ...(options.capacity === undefined ? [] : ['--capacity', String(options.capacity)]),
      ...(options.lazy === true ? ['--lazy'] : []),
    ];
    const child =
      options.netns === undefined
        ? spawn(WOOL_PYTHON, args, { cwd: repoRoot, stdio: ['pipe', 'pipe', 'pipe'] })
        : options.netns.spawn(WOOL_PYTHON, args);
    running.add(child);
    child.once('exit', () => running.delete(child));
    const agent = await Agent.attach(child);
    const ready = agent.reports[0];
    assert.equal(ready?.ev, 'ready', `wool peer did not start: ${agent.describe()}`);
    return new RealWool(agent, child.pid ?? -1);
  }

  /** Publishes through wool's publisher; rejects with wool's error. */
  async publish(type: DiscoveryEventType, worker: WoolWorker, timeoutMs = 15_000): Promise<void> {
    await this.agent.ok({ op: 'publish', type, worker }, timeoutMs);
  }

  /** Runs operations one by one in wool's publisher; returns how many succeeded and wool's error, if any. */
  async publishMany(
    ops: readonly { type: DiscoveryEventType; worker: WoolWorker }[],
    timeoutMs = 60_000,
  ): Promise<Report & { count?: number }> {
    return this.agent.call({ op: 'publishMany', ops }, timeoutMs);
  }

  /** Starts iterating wool's subscriber (local: `poll_interval` in seconds, none = notifications only). */
  async subscribe(id: string, pollInterval?: number): Promise<void> {
    this.agent.send({ op: 'subscribe', id, ...(pollInterval === undefined ? {} : { pollInterval }) });
    await this.agent.waitFor((r) => r.ev === 'subscribed' && r.id === id, `wool subscribed ${id}`);
  }

  /** wool's events on subscription `id`, in order. */
  events(id: string): Report[] {
    return this.agent.reports.filter((r) => r.ev === 'event' && r.id === id);
  }

  /** The state wool's events on `id` add up to: uid → worker. */
  state(id: string): Map<string, WoolWorker> {
    const state = new Map<string, WoolWorker>();
    for (const r of this.events(id)) {
      if (r.type === 'worker-dropped') state.delete(r.worker!.uid);
      else state.set(r.worker!.uid, r.worker!);
    }
    return state;
  }

  /** Errors wool's subscriber iterations raised. */
  errors(): Report[] {
    return this.agent.reports.filter((r) => r.ev === 'error' || r.ev === 'fatal');
  }

  /** Waits until wool's state on `id` equals `expected` (compared as JSON, keys sorted). */
  async waitForState(id: string, expected: readonly WoolWorker[], what: string, timeoutMs = 10_000): Promise<void> {
    const want = canonical(expected);
    await this.agent.waitUntil(
      () => (canonical([...this.state(id).values()]) === want ? true : undefined),
      () => `${what}: wool's state ${canonical([...this.state(id).values()])}\n  wanted ${want}`,
      timeoutMs,
    );
  }

  /** Takes wool's cross-process lock of the namespace (waiting as long as it takes); resolves once held. */
  async holdLock(timeoutMs = 15_000): Promise<void> {
    const held = this.agent.reports.filter((r) => r.ev === 'locked').length;
    this.agent.send({ op: 'holdLock' });
    await this.agent.waitUntil(
      () => (this.agent.reports.filter((r) => r.ev === 'locked').length > held ? true : undefined),
      'wool holds its lock',
      timeoutMs,
    );
  }

  /** Releases the lock {@link holdLock} took. */
  async releaseLock(): Promise<void> {
    await this.agent.ok({ op: 'releaseLock' });
  }

  /** Leaves like a wool process at the end of its `with` blocks, and waits for exit 0. */
  async exit(timeoutMs = 15_000): Promise<void> {
    await this.agent.ok({ op: 'exit' }, timeoutMs);
    const exited = await Promise.race([
      this.agent.exited,
      new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), timeoutMs).unref()),
    ]);
    assert.notEqual(exited, 'timeout', `wool peer ${this.pid} did not exit`);
    assert.deepEqual(exited, { code: 0, signal: null }, `wool peer exit; stderr: ${this.agent.stderr.join('\n')}`);
  }

  /** Sends a signal by pid (SIGKILL: the process dies without leaving). */
  async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    try {
      process.kill(this.pid, signal);
    } catch {
      // already gone
    }
    await this.agent.exited;
  }
}

/** Workers as canonical JSON (sorted by uid, keys sorted): for comparing states. */
export function canonical(workers: readonly WoolWorker[]): string {
  const sortKeys = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(sortKeys);
    if (value !== null && typeof value === 'object') {
      return Object.fromEntries(
        Object.entries(value as Record<string, unknown>)
          .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
          .map(([k, v]) => [k, sortKeys(v)]),
      );
    }
    return value;
  };
  return JSON.stringify([...workers].sort((a, b) => (a.uid < b.uid ? -1 : 1)).map(sortKeys));
}

/**
 * Runs a short-lived wool process (`local`, lazy: it enters nothing unless a command publishes or subscribes) to its
 * end.
 */
function woolOnce(namespace: string, commands: readonly object[]): Report[] {
  assertRealWool();
  const input = commands.map((command, i) => `${JSON.stringify({ seq: i + 1, ...command })}\n`).join('');
  const result = spawnSync(WOOL_PYTHON, [REALWOOL_PEER, 'local', namespace, '--lazy'], {
    input,
    encoding: 'utf8',
    timeout: 30_000,
    maxBuffer: 64 << 20,
  });
  assert.equal(result.status, 0, `wool process failed: ${result.stderr || result.error?.message || ''}`);
  assert.equal(result.stderr, '');
  return result.stdout
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Report);
}

/** The workers in the namespace's segment, read by wool's own code (slot order). */
export function woolScan(namespace: string): WoolWorker[] {
  const done = woolOnce(namespace, [{ op: 'scan' }]).find((r) => r.ev === 'done') as
    (Report & { workers?: WoolWorker[] }) | undefined;
  assert.ok(done?.workers !== undefined, 'wool scan answered');
  return done.workers;
}

/** One non-blocking attempt at wool's lock of the namespace by a wool process: "busy" or "free". */
export function woolTryLock(namespace: string): string {
  const done = woolOnce(namespace, [{ op: 'tryLock' }]).find((r) => r.ev === 'done') as
    (Report & { value?: string }) | undefined;
  assert.ok(done?.value !== undefined, 'wool tryLock answered');
  return done.value;
}
