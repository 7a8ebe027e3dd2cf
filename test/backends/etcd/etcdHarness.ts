/**
 * Real etcd servers for tests and benchmarks: a single node or a cluster of
 * members on 127.0.0.1, each with free ports and a temporary data directory
 * (on tmpfs when the machine has one). Every server is stopped and every
 * directory removed by `dispose()`, and — should a test fail, time out or
 * the process be interrupted — by the exit and signal handlers this module
 * installs on first use.
 *
 * @example
 * const etcd = await startEtcd();
 * try {
 *   const discovery = etcdDiscovery('jobs', { endpoints: etcd.endpoints });
 *   // ...
 * } finally {
 *   await etcd.dispose();
 * }
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onInterrupt } from '../../support/onInterrupt.js';

/** The etcd binary: `$ETCD_BIN`, else `etcd` on the PATH (Debian's etcd-server). */
export const ETCD_BIN = process.env['ETCD_BIN'] ?? 'etcd';

/** TLS material for the client listener (PEM file paths). */
export interface EtcdTlsFiles {
  readonly certFile: string;
  readonly keyFile: string;
}

/** Options of {@link startEtcd} and {@link startEtcdCluster}. */
export interface EtcdStartOptions {
  /** Serve clients over TLS with this certificate. */
  readonly tls?: EtcdTlsFiles;
  /** How long to wait for the server(s) to become ready. Default 20 s. */
  readonly readyTimeoutMs?: number;
  /** Raft heartbeat, ms. Default 50 (fast elections on loopback). */
  readonly heartbeatMs?: number;
  /** Raft election timeout, ms. Default 500. */
  readonly electionMs?: number;
  /**
   * The IPv4 address the members listen on and advertise (clients and
   * peers). Default `127.0.0.1`.
   */
  readonly host?: string;
  /**
   * A network namespace (its `ip netns` name) to run the members in, through
   * `ip netns exec` (which execs etcd: the member's pid is etcd's). `host`
   * must then be an address of that namespace.
   */
  readonly netns?: string;
}

/** One etcd member process. */
export class EtcdMember {
  readonly name: string;
  readonly clientPort: number;
  readonly peerPort: number;
  readonly dataDir: string;
  readonly #args: readonly string[];
  readonly #readyTimeoutMs: number;
  readonly #netns: string | undefined;
  #process: ChildProcess | undefined;
  #log: string[] = [];

  constructor(
    name: string,
    clientPort: number,
    peerPort: number,
    dataDir: string,
    args: readonly string[],
    readyTimeoutMs: number,
    netns?: string,
  ) {
    this.name = name;
    this.clientPort = clientPort;
    this.peerPort = peerPort;
    this.dataDir = dataDir;
    this.#args = args;
    this.#readyTimeoutMs = readyTimeoutMs;
    this.#netns = netns;
  }

  /** Whether the process is running. */
  get running(): boolean {
    return this.#process !== undefined;
  }

  /** The process id while running. */
  get pid(): number | undefined {
    return this.#process?.pid;
  }

  /** The last lines etcd logged, for failure messages. */
  get log(): string {
    return this.#log.join('\n');
  }

  /** Starts the process and resolves once it serves clients. */
  start(): Promise<void> {
    if (this.#process !== undefined) return Promise.reject(new Error(`etcd member ${this.name} is already running`));
    const child =
      this.#netns === undefined
        ? spawn(ETCD_BIN, this.#args, { stdio: ['ignore', 'pipe', 'pipe'] })
        : spawn('ip', ['netns', 'exec', this.#netns, ETCD_BIN, ...this.#args], { stdio: ['ignore', 'pipe', 'pipe'] });
    this.#process = child;
    live.add(child);
    this.#log = [];
    return new Promise<void>((resolve, reject) => {
      let ready = false;
      let pending = '';
      const timer = setTimeout(() => {
        reject(new Error(`etcd member ${this.name} not ready after ${this.#readyTimeoutMs} ms; log:\n${this.log}`));
      }, this.#readyTimeoutMs);
      const onData = (chunk: Buffer): void => {
        pending += chunk.toString('utf8');
        const lines = pending.split('\n');
        pending = lines.pop() ?? '';
        for (const line of lines) {
          this.#log.push(line);
          if (this.#log.length > 40) this.#log.shift();
          if (!ready && line.includes('serving client traffic')) {
            ready = true;
            clearTimeout(timer);
            resolve();
          }
        }
      };
      child.stdout?.on('data', onData);
      child.stderr?.on('data', onData);
      child.once('error', (error) => {
        clearTimeout(timer);
        live.delete(child);
        if (this.#process === child) this.#process = undefined;
        reject(new Error(`cannot run ${ETCD_BIN} (install Debian's etcd-server): ${error.message}`));
      });
      child.once('exit', (code, signal) => {
        live.delete(child);
        if (this.#process === child) this.#process = undefined;
        if (!ready) {
          clearTimeout(timer);
          reject(
            new Error(`etcd member ${this.name} exited (${signal ?? code}) before it was ready; log:\n${this.log}`),
          );
        }
      });
    });
  }

  /**
   * Stops the process and waits for it to exit.
   * @param signal `SIGTERM` (default; etcd shuts down cleanly) or `SIGKILL`.
   */
  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    const child = this.#process;
    if (child === undefined) return;
    const exited = new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) resolve();
      else child.once('exit', () => resolve());
    });
    child.kill(signal);
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
    child.stdout?.destroy();
    child.stderr?.destroy();
    this.#process = undefined;
  }
}

/** A running etcd cluster (one member for {@link startEtcd}). */
export class EtcdCluster {
  readonly members: readonly EtcdMember[];
  readonly #root: string;
  readonly #scheme: 'http' | 'https';
  readonly #host: string;
  #disposed = false;

  constructor(members: readonly EtcdMember[], root: string, scheme: 'http' | 'https', host = '127.0.0.1') {
    this.members = members;
    this.#root = root;
    this.#scheme = scheme;
    this.#host = host;
  }

  /** The data directories' parent (removed by {@link EtcdCluster.dispose}). */
  get root(): string {
    return this.#root;
  }

  /** Client URLs of every member (running or not). */
  get endpoints(): string[] {
    return this.members.map((member) => `${this.#scheme}://${this.#host}:${member.clientPort}`);
  }

  /** Stops every member (concurrently). */
  async stopAll(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    await Promise.all(this.members.map((member) => member.stop(signal)));
  }

  /** Starts every stopped member (concurrently: a cluster needs a quorum to become ready). */
  async startAll(): Promise<void> {
    await Promise.all(this.members.filter((member) => !member.running).map((member) => member.start()));
  }

  /** Stops every member and removes the data directories. Idempotent. */
  async dispose(): Promise<void> {
    if (this.#disposed) return;
    this.#disposed = true;
    try {
      await this.stopAll('SIGKILL');
    } finally {
      rmSync(this.#root, { recursive: true, force: true });
      roots.delete(this.#root);
    }
  }

  /** Same as {@link EtcdCluster.dispose}, for `await using`. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.dispose();
  }
}

const live = new Set<ChildProcess>();
const roots = new Set<string>();
let handlersInstalled = false;

function cleanUpNow(): void {
  for (const child of live) child.kill('SIGKILL');
  live.clear();
  for (const root of roots) rmSync(root, { recursive: true, force: true });
  roots.clear();
}

function installHandlers(): void {
  if (handlersInstalled) return;
  handlersInstalled = true;
  process.once('exit', cleanUpNow);
  onInterrupt(cleanUpNow);
}

/** Number of etcd processes this module has started that are still running (for leak checks). */
export function runningEtcdProcesses(): number {
  return live.size;
}

/** A TCP port that was free on 127.0.0.1 a moment ago. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => {
        if (address !== null && typeof address === 'object') resolve(address.port);
        else reject(new Error('no port'));
      });
    });
  });
}

/**
 * Starts an etcd cluster of `size` members on loopback (or `options.host`,
 * in `options.netns`) and resolves once every member serves clients.
 * @param size Number of members (1 for a single node).
 * @param options TLS, timing, address and network namespace.
 * @returns The cluster; call `dispose()` when done.
 */
export async function startEtcdCluster(size = 3, options: EtcdStartOptions = {}): Promise<EtcdCluster> {
  installHandlers();
  const base = existsSync('/dev/shm') ? '/dev/shm' : tmpdir();
  const root = mkdtempSync(join(base, 'woolrx-etcd-'));
  roots.add(root);
  const ports: number[] = [];
  while (ports.length < size * 2) {
    const port = await freePort();
    if (!ports.includes(port)) ports.push(port);
  }
  const scheme = options.tls === undefined ? 'http' : 'https';
  const host = options.host ?? '127.0.0.1';
  const names = Array.from({ length: size }, (_, i) => `m${i}`);
  const initialCluster = names.map((name, i) => `${name}=http://${host}:${ports[2 * i + 1]}`).join(',');
  const token = `woolrx-${process.pid}-${ports[0]}`;
  const members = names.map((name, i) => {
    const clientPort = ports[2 * i] as number;
    const peerPort = ports[2 * i + 1] as number;
    const dataDir = join(root, name);
    const args = [
      '--name',
      name,
      '--data-dir',
      dataDir,
      '--listen-client-urls',
      `${scheme}://${host}:${clientPort}`,
      '--advertise-client-urls',
      `${scheme}://${host}:${clientPort}`,
      '--listen-peer-urls',
      `http://${host}:${peerPort}`,
      '--initial-advertise-peer-urls',
      `http://${host}:${peerPort}`,
      '--initial-cluster',
      initialCluster,
      '--initial-cluster-token',
      token,
      '--initial-cluster-state',
      'new',
      '--heartbeat-interval',
      String(options.heartbeatMs ?? 50),
      '--election-timeout',
      String(options.electionMs ?? 500),
      '--logger',
      'zap',
      '--log-outputs',
      'stderr',
      '--log-level',
      'info',
      ...(options.tls === undefined ? [] : ['--cert-file', options.tls.certFile, '--key-file', options.tls.keyFile]),
    ];
    return new EtcdMember(name, clientPort, peerPort, dataDir, args, options.readyTimeoutMs ?? 20_000, options.netns);
  });
  const cluster = new EtcdCluster(members, root, scheme, host);
  try {
    await cluster.startAll();
  } catch (error) {
    await cluster.dispose();
    throw error;
  }
  return cluster;
}

/**
 * Starts a single-node etcd on loopback (or `options.host`, in `options.netns`).
 * @param options TLS, timing, address and network namespace.
 * @returns The server; call `dispose()` when done.
 */
export function startEtcd(options: EtcdStartOptions = {}): Promise<EtcdCluster> {
  return startEtcdCluster(1, options);
}
