/**
 * Two "hosts" on one machine, and an etcd both reach, for the relay's tests.
 *
 * A host is a network namespace (test/backends/lan/netns.ts) plus a mount
 * namespace of its own with private tmpfs mounts on `/dev/shm` and `/tmp`:
 * a holder process (`ip netns exec <ns> unshare -m --propagation private sh`)
 * mounts them and then waits; every process of the host is entered into the
 * holder's network and mount namespaces with `nsenter -t <holder> -m -n`, and
 * runs with `TMPDIR=/tmp`. So a host's wool and woolrx see only that host's
 * shared memory and temp directory — not the other host's, not the machine's.
 *
 * The etcd runs in a third network namespace ("the etcd host"), joined to
 * each host by a veth pair, and listens on a service address on its loopback
 * (`10.218.<subnet>.1`) that both hosts route to: one endpoint for everyone,
 * and every packet stays in namespaces the test made (nothing is added to
 * the root namespace). The hosts are joined to each other by the veth pair of
 * `Netns.pair` (multicast routed on it, for mDNS): host A is
 * `10.213.<subnet>.1`, host B `.2`.
 *
 * Teardown (`dispose()`, also when a test failed; and the modules' exit
 * handlers as a last resort) kills every process of every namespace, unmounts
 * the hosts' tmpfs, deletes the namespaces and etcd's data directory.
 *
 * @example
 * const hosts = await startTwoHosts('relay', 3);
 * try {
 *   const wool = await RealWool.start('local', ns, { netns: hosts.a });
 *   const relay = hosts.a.woolrx(['relay', '--from', 'local', ...]);
 *   // ...
 *   assert.deepEqual(hosts.a.leftovers(), []);
 * } finally {
 *   await hosts.dispose();
 * }
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { startEtcd, type EtcdCluster, type EtcdStartOptions } from '../backends/etcd/etcdHarness.js';
import { Netns, ROOT } from '../backends/lan/netns.js';

/**
 * The built CLI (`npm run build`; `npm test` builds first). Run from dist, not through tsx, whose cache would land in
 * the host's temp directory.
 */
export const BUILT_CLI = join(ROOT, 'dist', 'cli', 'main.js');

/** Fails (never skips) when the CLI is not built: the relay runs in the hosts as a user runs it. */
export function assertBuiltCli(): void {
  if (!existsSync(BUILT_CLI))
    throw new Error(`${BUILT_CLI} is missing: run \`npm run build\` first (\`npm test\` does)`);
}

/** What every process of a host gets in its environment (added to this process's). */
const HOST_ENV: NodeJS.ProcessEnv = { TMPDIR: '/tmp', NODE_OPTIONS: '' };

/** This process's environment without the test runner's marker (a child is not part of our test run). */
function childEnv(extra: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const { NODE_TEST_CONTEXT: _context, ...env } = process.env;
  return { ...env, ...extra };
}

/** Waits for `child` to print `line` on stdout, or fails saying what it awaited. */
function waitForLine(child: ChildProcess, line: string, what: string, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const lines = createInterface({ input: child.stdout! });
    const done = (error?: Error): void => {
      clearTimeout(timer);
      lines.close();
      child.off('exit', onExit);
      if (error === undefined) resolve();
      else reject(error);
    };
    const onExit = (code: number | null, signal: NodeJS.Signals | null): void =>
      done(new Error(`${what}: exited (${signal ?? code}) before printing "${line}"; stderr: ${stderr}`));
    const timer = setTimeout(
      () => done(new Error(`${what}: no "${line}" within ${timeoutMs} ms; stderr: ${stderr}`)),
      timeoutMs,
    );
    lines.on('line', (text) => {
      if (text === line) done();
    });
    child.once('exit', onExit);
  });
}

function isRunning(child: ChildProcess): boolean {
  return child.exitCode === null && child.signalCode === null;
}

/** One host: a network namespace and a mount namespace with its own `/dev/shm` and `/tmp`. */
export class Host {
  /** `a` or `b`, for messages. */
  readonly label: string;
  readonly netns: Netns;
  /** The host's address on the link between the hosts (what `--advertise-host` names). */
  readonly address: string;
  readonly #holder: ChildProcess;
  readonly #children = new Set<ChildProcess>();
  #disposed = false;

  private constructor(label: string, netns: Netns, address: string, holder: ChildProcess) {
    this.label = label;
    this.netns = netns;
    this.address = address;
    this.#holder = holder;
  }

  /**
   * Starts the host's mount-namespace holder in `netns` and resolves once
   * its tmpfs mounts are in place.
   * @param label For messages.
   * @param netns The host's network namespace (disposed with the host).
   * @param address The host's address.
   */
  static async start(label: string, netns: Netns, address: string): Promise<Host> {
    // The holder mounts, says so, and waits for its stdin to close (this
    // process gone: it then exits rather than hold the mounts forever).
    const script = [
      'set -e',
      `mount -t tmpfs -o mode=1777,size=64m woolrx-host-${label}-shm /dev/shm`,
      `mount -t tmpfs -o mode=1777,size=64m woolrx-host-${label}-tmp /tmp`,
      'echo mounted',
      'read _ || true',
    ].join('\n');
    const holder = netns.spawn('unshare', ['--mount', '--propagation', 'private', '--', 'sh', '-c', script]);
    const host = new Host(label, netns, address, holder);
    try {
      await waitForLine(
        holder,
        'mounted',
        `host ${label}'s mount-namespace holder (unshare -m in ${netns.name})`,
        10_000,
      );
    } catch (error) {
      host.dispose();
      throw error;
    }
    return host;
  }

  /** The holder's pid: the host's mount namespace is `/proc/<pid>/ns/mnt`. */
  get holderPid(): number {
    const pid = this.#holder.pid;
    if (pid === undefined) throw new Error(`host ${this.label} has no holder process`);
    return pid;
  }

  #nsenter(command: string, args: readonly string[]): string[] {
    return ['-t', String(this.holderPid), '-m', '-n', `--wd=${ROOT}`, '--', command, ...args];
  }

  /**
   * Spawns `command args` in this host (stdio piped, `TMPDIR=/tmp`, `env`
   * added; the working directory is the repository); killed at dispose.
   * `nsenter` execs the command: the child's pid is the command's.
   */
  spawn(command: string, args: readonly string[] = [], env: NodeJS.ProcessEnv = {}): ChildProcess {
    if (this.#disposed) throw new Error(`host ${this.label} is disposed`);
    const child = spawn('nsenter', this.#nsenter(command, args), {
      cwd: ROOT,
      stdio: ['pipe', 'pipe', 'pipe'],
      env: childEnv({ ...HOST_ENV, ...env }),
    });
    this.#children.add(child);
    child.once('exit', () => this.#children.delete(child));
    return child;
  }

  /** Runs `command args` in this host to its end (30 s at most). */
  run(command: string, args: readonly string[] = []): { status: number | null; stdout: string; stderr: string } {
    const result = spawnSync('nsenter', this.#nsenter(command, args), {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 30_000,
      env: childEnv(HOST_ENV),
    });
    return { status: result.status, stdout: result.stdout ?? '', stderr: result.stderr || result.error?.message || '' };
  }

  /**
   * POSTs `body` to etcd's JSON gateway (`endpoint` + `path`, e.g.
   * `/v3/lease/leases`) from this host, and returns the parsed answer.
   */
  etcdJson(endpoint: string, path: string, body: object): unknown {
    const script = `fetch(process.argv[1], { method: 'POST', body: process.argv[2], signal: AbortSignal.timeout(5000) })
      .then((response) => response.text()).then((text) => process.stdout.write(text))
      .catch((error) => { console.error(String(error)); process.exit(1); });`;
    const result = this.run(process.execPath, ['-e', script, `${endpoint}${path}`, JSON.stringify(body)]);
    if (result.status !== 0) throw new Error(`etcd ${path} from host ${this.label}: ${result.stderr}`);
    return JSON.parse(result.stdout) as unknown;
  }

  /** Spawns the built `woolrx <args>` (`node dist/cli/main.js`) in this host. */
  woolrx(args: readonly string[]): ChildProcess {
    assertBuiltCli();
    return this.spawn(process.execPath, [BUILT_CLI, ...args]);
  }

  /** What the host's `/dev/shm` holds, read through the holder's mount namespace. */
  shm(): string[] {
    return readdirSync(`/proc/${this.holderPid}/root/dev/shm`).sort();
  }

  /** What the host's `/tmp` (its temp directory) holds. */
  tmp(): string[] {
    return readdirSync(`/proc/${this.holderPid}/root/tmp`).sort();
  }

  /**
   * Everything in the host's `/dev/shm` and temp directory: both are tmpfs
   * made empty for this host, and only wool and woolrx write there, so
   * anything at all is something they left.
   */
  leftovers(): string[] {
    return [...this.shm().map((name) => `/dev/shm/${name}`), ...this.tmp().map((name) => `/tmp/${name}`)];
  }

  /**
   * Kills every process of the host (the ones spawned here and anything else
   * in its network namespace), unmounts its tmpfs, and deletes the network
   * namespace. Idempotent.
   */
  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    for (const child of this.#children) if (isRunning(child)) child.kill('SIGKILL');
    if (this.#holder.pid !== undefined && isRunning(this.#holder)) {
      // Lazily: a killed process may still be exiting.
      spawnSync('nsenter', ['-t', String(this.#holder.pid), '-m', '--', 'umount', '-l', '/dev/shm', '/tmp'], {
        timeout: 10_000,
      });
    }
    this.netns.dispose(); // SIGKILLs what runs in it (the holder too) and deletes it
  }
}

/** Two hosts and an etcd both reach; see the module's documentation. */
export interface TwoHosts {
  readonly a: Host;
  readonly b: Host;
  /** The etcd host's network namespace (an etcd subscriber may run there). */
  readonly etcdHost: Netns;
  readonly etcd: EtcdCluster;
  /** etcd's client URL, the same from both hosts and the etcd host. */
  readonly endpoint: string;
  /** Spawns `node <args>` in the etcd host (with the root's mounts); killed at dispose. */
  nodeInEtcdHost(args: readonly string[]): ChildProcess;
  /** Tears everything down (idempotent); throws the first failure after doing all of it. */
  dispose(): Promise<void>;
}

/**
 * Makes two hosts and the etcd host, starts etcd; everything made so far is
 * removed if a step fails.
 * @param purpose A few letters for the namespace names.
 * @param subnet 1–250: the third octet of every address (distinct per test file, for readable logs).
 * @param options `etcd`: timing options of the etcd server.
 */
export async function startTwoHosts(
  purpose: string,
  subnet: number,
  options: { readonly etcd?: Omit<EtcdStartOptions, 'host' | 'netns'> } = {},
): Promise<TwoHosts> {
  const undo: (() => void | Promise<void>)[] = [];
  const tearDown = async (): Promise<void> => {
    const errors: unknown[] = [];
    for (const step of undo.splice(0).reverse()) {
      try {
        await step();
      } catch (error) {
        errors.push(error);
      }
    }
    if (errors.length > 0) throw errors[0];
  };
  try {
    const pair = Netns.pair(purpose, subnet);
    undo.push(
      () => pair.a.dispose(),
      () => pair.b.dispose(),
    );
    const etcdHost = Netns.create(`${purpose}e`);
    undo.push(() => etcdHost.dispose());
    const service = `10.218.${subnet}.1`;
    etcdHost.ip('addr', 'add', `${service}/32`, 'dev', 'lo');
    for (const [host, link] of [
      [pair.a, 216],
      [pair.b, 217],
    ] as const) {
      host.link(etcdHost, `10.${link}.${subnet}.1/24`, `10.${link}.${subnet}.2/24`);
      host.ip('route', 'add', `${service}/32`, 'via', `10.${link}.${subnet}.2`);
    }
    const a = await Host.start('a', pair.a, `10.213.${subnet}.1`);
    undo.push(() => a.dispose());
    const b = await Host.start('b', pair.b, `10.213.${subnet}.2`);
    undo.push(() => b.dispose());
    const etcd = await startEtcd({ ...options.etcd, host: service, netns: etcdHost.name });
    undo.push(() => etcd.dispose()); // undone first: stopped cleanly, its data directory removed
    const endpoint = etcd.endpoints[0];
    if (endpoint === undefined) throw new Error('etcd has no endpoint');
    return {
      a,
      b,
      etcdHost,
      etcd,
      endpoint,
      nodeInEtcdHost: (args) => etcdHost.spawn(process.execPath, args, { NODE_OPTIONS: '' }),
      dispose: tearDown,
    };
  } catch (error) {
    await tearDown().catch(() => undefined);
    throw error;
  }
}
