/**
 * Network namespaces for the LAN tests. mDNS must never reach the host's own
 * interfaces, so every process that opens an mDNS socket runs inside a
 * namespace made here: `ip netns add woolrx-<purpose>-<pid>-<n>`, loopback
 * up with multicast, a multicast route; for "two hosts", two namespaces
 * joined by a veth pair with private addresses. Every namespace and child is
 * removed at the end (`dispose()`), and on process exit as a last resort.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { onInterrupt } from '../../support/onInterrupt.js';

/** The repository root (children run from it, so `tsx` resolves). */
export const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

const created = new Set<string>();
const children = new Set<ChildProcess>();
let serial = 0;
let links = 0;

function ip(...args: string[]): void {
  const result = spawnSync('ip', args, { encoding: 'utf8' });
  if (result.status !== 0)
    throw new Error(`ip ${args.join(' ')} failed: ${result.stderr || result.error?.message || ''}`);
}

function removeNamespace(name: string): void {
  spawnSync('ip', ['netns', 'pids', name], { encoding: 'utf8' })
    .stdout?.split('\n')
    .filter((pid) => /^\d+$/.test(pid))
    .forEach((pid) => {
      try {
        process.kill(Number(pid), 'SIGKILL');
      } catch {
        // already gone
      }
    });
  spawnSync('ip', ['netns', 'del', name]);
  created.delete(name);
}

function cleanUp(): void {
  for (const child of children) child.kill('SIGKILL');
  for (const name of [...created]) removeNamespace(name);
}
process.on('exit', cleanUp);
onInterrupt(cleanUp);

let checked = false;

/**
 * Fails loudly (never skips) when this process may not create network
 * namespaces: mDNS must stay inside namespaces the tests made, so the LAN
 * tests cannot fall back to the host's interfaces.
 */
function assertCanCreateNamespaces(): void {
  if (checked) return;
  if (process.getuid?.() !== 0 || spawnSync('ip', ['-V']).status !== 0) {
    throw new Error(
      'LAN tests create network namespaces for their mDNS traffic: run them as root with iproute2 installed (CI does)',
    );
  }
  checked = true;
}

/** One network namespace this test process made. */
export class Netns {
  readonly name: string;

  private constructor(name: string) {
    this.name = name;
  }

  /**
   * A fresh namespace with loopback up, multicast on, and the multicast
   * route on loopback (replaced by the veth's when linked).
   */
  static create(purpose: string): Netns {
    assertCanCreateNamespaces();
    serial++;
    const name = `woolrx-${purpose}-${process.pid}-${serial}`;
    ip('netns', 'add', name);
    created.add(name);
    try {
      ip('-n', name, 'link', 'set', 'lo', 'up');
      ip('-n', name, 'link', 'set', 'lo', 'multicast', 'on');
      ip('-n', name, 'route', 'add', '224.0.0.0/4', 'dev', 'lo');
    } catch (error) {
      removeNamespace(name);
      throw error;
    }
    return new Netns(name);
  }

  /**
   * Two namespaces joined by a veth pair: `a` is 10.213.<subnet>.1/24 and
   * fd13:<subnet>::1/64, `b` .2; multicast routes on the veth; each has a
   * default route via the other (so a wildcard bind has a default-route
   * address).
   */
  static pair(purpose: string, subnet: number): { a: Netns; b: Netns; veth: { a: string; b: string } } {
    const a = Netns.create(`${purpose}a`);
    let b: Netns;
    try {
      b = Netns.create(`${purpose}b`);
    } catch (error) {
      a.dispose();
      throw error;
    }
    const vethA = `wrx${process.pid % 100000}${serial}a`.slice(0, 15);
    const vethB = `wrx${process.pid % 100000}${serial}b`.slice(0, 15);
    try {
      ip('link', 'add', vethA, 'netns', a.name, 'type', 'veth', 'peer', 'name', vethB, 'netns', b.name);
      for (const [ns, dev, host] of [
        [a, vethA, 1],
        [b, vethB, 2],
      ] as const) {
        ip('-n', ns.name, 'addr', 'add', `10.213.${subnet}.${host}/24`, 'dev', dev);
        ip('-n', ns.name, '-6', 'addr', 'add', `fd13:${subnet}::${host}/64`, 'dev', dev, 'nodad');
        ip('-n', ns.name, 'link', 'set', dev, 'up');
        ip('-n', ns.name, 'route', 'del', '224.0.0.0/4', 'dev', 'lo');
        ip('-n', ns.name, 'route', 'add', '224.0.0.0/4', 'dev', dev);
        ip('-n', ns.name, 'route', 'add', 'default', 'via', `10.213.${subnet}.${3 - host}`);
      }
    } catch (error) {
      a.dispose();
      b.dispose();
      throw error;
    }
    return { a, b, veth: { a: vethA, b: vethB } };
  }

  /**
   * Joins this namespace to `other` with one more veth pair, for unicast
   * (the multicast route stays where it is): `address` (CIDR, e.g.
   * `10.216.1.1/24`) on this end, `otherAddress` on the other, both up.
   * Created inside the two namespaces (never in the root one); removed with
   * either namespace.
   * @returns The interface names on this end and on the other.
   */
  link(other: Netns, address: string, otherAddress: string): { here: string; there: string } {
    links++;
    const here = `wrl${process.pid % 100000}${links}a`.slice(0, 15);
    const there = `wrl${process.pid % 100000}${links}b`.slice(0, 15);
    ip('link', 'add', here, 'netns', this.name, 'type', 'veth', 'peer', 'name', there, 'netns', other.name);
    for (const [ns, dev, cidr] of [
      [this as Netns, here, address],
      [other, there, otherAddress],
    ] as const) {
      ip('-n', ns.name, 'addr', 'add', cidr, 'dev', dev);
      ip('-n', ns.name, 'link', 'set', dev, 'up');
    }
    return { here, there };
  }

  /** Runs `ip -n <ns> ...`. */
  ip(...args: string[]): void {
    ip('-n', this.name, ...args);
  }

  /** Spawns `node --import tsx <script> ...args` inside the namespace; killed at dispose/exit. */
  spawnNode(script: string, args: readonly string[] = [], nodeArgs: readonly string[] = []): ChildProcess {
    // A child run with --test is a test run of its own, not part of ours.
    const { NODE_TEST_CONTEXT: _context, ...env } = process.env;
    const child = spawn(
      'ip',
      ['netns', 'exec', this.name, process.execPath, '--import', 'tsx', ...nodeArgs, script, ...args],
      {
        cwd: ROOT,
        stdio: ['pipe', 'pipe', 'pipe'],
        env: { ...env, NODE_OPTIONS: '', WOOLRX_LAN_NETNS: this.name },
      },
    );
    children.add(child);
    child.once('exit', () => children.delete(child));
    return child;
  }

  /** Spawns any command inside the namespace (stdio piped; `env` added to this process's); killed at dispose/exit. */
  spawn(command: string, args: readonly string[] = [], env: NodeJS.ProcessEnv = {}): ChildProcess {
    const child = spawn('ip', ['netns', 'exec', this.name, command, ...args], {
      cwd: ROOT,
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, ...env },
    });
    children.add(child);
    child.once('exit', () => children.delete(child));
    return child;
  }

  /** Kills what still runs in the namespace and deletes it. Idempotent. */
  dispose(): void {
    removeNamespace(this.name);
  }
}

/** Kills every child still running (SIGKILL). */
export function killChildren(): void {
  for (const child of children) child.kill('SIGKILL');
}
