/**
 * Drives a `children/agent.ts` participant running in a network namespace:
 * sends it JSON commands and waits (with timeouts) for its JSON reports.
 */
import type { ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { after, before } from 'node:test';
import type { DiscoveryEventType } from '../../../src/events/types.js';
import type { WorkerInfo } from '../../../src/model/types.js';
import { Netns } from './netns.js';

/** One line an agent reported. */
export interface Report {
  readonly ev: string;
  readonly id?: string;
  readonly seq?: number;
  readonly type?: DiscoveryEventType;
  readonly worker?: WorkerInfo;
  /** A drop's reason, when the backend gave one. */
  readonly reason?: string;
  readonly kind?: string;
  readonly uid?: string;
  readonly message?: string;
  readonly ms?: number;
  readonly at?: number;
  readonly calls?: number;
  /** bonjourPeer: the service instance name. */
  readonly name?: string;
  readonly txt?: Record<string, unknown>;
  readonly addresses?: string[];
  /** A snapshot's worker uids. */
  readonly uids?: string[];
  readonly port?: number;
  readonly error?: { name?: string; message?: string; code?: string; errno?: string; key?: string; host?: string };
}

const AGENT = 'test/backends/lan/children/agent.ts';

export class Agent {
  readonly reports: Report[] = [];
  readonly child: ChildProcess;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  readonly stderr: string[] = [];
  #seq = 0;
  #waiters = new Set<() => void>();

  private constructor(child: ChildProcess) {
    this.child = child;
    this.exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      try {
        this.reports.push(JSON.parse(line) as Report);
      } catch {
        this.stderr.push(`stdout: ${line}`);
      }
      for (const waiter of [...this.#waiters]) waiter();
    });
    createInterface({ input: child.stderr! }).on('line', (line) => this.stderr.push(line));
    void this.exited.then(() => {
      for (const waiter of [...this.#waiters]) waiter();
    });
  }

  /**
   * Starts an agent (or another JSON-lines child such as `children/bonjourPeer.ts`) in `netns`; waits until it is
   * ready.
   */
  static async start(netns: Netns, script = AGENT, args: readonly string[] = []): Promise<Agent> {
    const agent = new Agent(netns.spawnNode(script, args));
    await agent.waitFor((r) => r.ev === 'ready', 'agent ready', 20_000);
    return agent;
  }

  /** Wraps any JSON-lines child (e.g. the Python peer); waits for its first report. */
  static async attach(child: ChildProcess): Promise<Agent> {
    const agent = new Agent(child);
    await agent.waitFor(() => true, 'first report', 20_000);
    return agent;
  }

  send(command: object): void {
    this.child.stdin!.write(`${JSON.stringify(command)}\n`);
  }

  /** Waits until some report satisfies `predicate`; returns it. */
  waitFor(predicate: (report: Report) => boolean, what: string, timeoutMs = 10_000): Promise<Report> {
    return this.waitUntil(() => this.reports.find(predicate), what, timeoutMs);
  }

  /** Waits until `probe` returns something other than undefined. */
  waitUntil<T>(probe: () => T | undefined, what: string | (() => string), timeoutMs = 10_000): Promise<T> {
    return new Promise((resolve, reject) => {
      const check = (): void => {
        const found = probe();
        if (found !== undefined) {
          clearTimeout(timer);
          this.#waiters.delete(check);
          resolve(found);
        } else if (this.child.exitCode !== null || this.child.signalCode !== null) {
          clearTimeout(timer);
          this.#waiters.delete(check);
          reject(
            new Error(
              `agent exited while waiting for ${typeof what === 'string' ? what : what()}; reports: ${this.describe()}`,
            ),
          );
        }
      };
      const timer = setTimeout(() => {
        this.#waiters.delete(check);
        reject(
          new Error(
            `timed out after ${timeoutMs} ms waiting for ${typeof what === 'string' ? what : what()}; reports: ${this.describe()}`,
          ),
        );
      }, timeoutMs);
      this.#waiters.add(check);
      check();
    });
  }

  describe(): string {
    const lines = this.reports
      .filter((r) => r.ev !== 'ready')
      .slice(-30)
      .map((r) =>
        r.worker
          ? `${r.ev} ${r.id} ${r.type} ${r.worker.uid} v${r.worker.version} ${r.worker.address}`
          : JSON.stringify(r),
      );
    return `\n  ${lines.join('\n  ')}\n  stderr: ${this.stderr.slice(-10).join('\n  ')}`;
  }

  /** Runs a publish-like command and waits for its `done` report; returns it. */
  async call(command: object, timeoutMs = 15_000): Promise<Report> {
    this.#seq++;
    const seq = this.#seq;
    this.send({ ...command, seq });
    return this.waitFor(
      (r) => r.ev === 'done' && r.seq === seq,
      `done of ${JSON.stringify(command).slice(0, 120)}`,
      timeoutMs,
    );
  }

  /** Calls and fails on an error report. */
  async ok(command: object, timeoutMs?: number): Promise<Report> {
    const done = await this.call(command, timeoutMs);
    if (done.error !== undefined)
      throw new Error(`${JSON.stringify(command).slice(0, 200)} failed: ${JSON.stringify(done.error)}`);
    return done;
  }

  /** Worker events of subscription `id`, in order. */
  events(id: string): Report[] {
    return this.reports.filter((r) => r.ev === 'event' && r.id === id);
  }

  /** `added <uid>@<version>`-style summaries of subscription `id`. */
  summaries(id: string, names: ReadonlyMap<string, string> = new Map()): string[] {
    return this.events(id).map(
      (r) => `${r.type!.slice('worker-'.length)} ${names.get(r.worker!.uid) ?? r.worker!.uid}@${r.worker!.version}`,
    );
  }

  /** Asks the agent to stop reading commands; it should then exit by itself. */
  end(): void {
    this.send({ op: 'end' });
    this.child.stdin!.end();
  }

  kill(signal: NodeJS.Signals = 'SIGKILL'): void {
    this.child.kill(signal);
  }
}

/**
 * A publisher agent and a subscriber agent on two hosts (two namespaces
 * joined by a veth pair, `Netns.pair(purpose, subnet)`): started before the
 * enclosing suite's tests, killed and removed after them. Call inside
 * `describe`; read the agents in tests (not before `before` ran).
 */
export function agentsOnTwoHosts(
  purpose: string,
  subnet: number,
): { readonly publisher: Agent; readonly subscriber: Agent } {
  let hosts: { a: Netns; b: Netns } | undefined;
  let agents: { publisher: Agent; subscriber: Agent } | undefined;
  before(async () => {
    hosts = Netns.pair(purpose, subnet);
    agents = { publisher: await Agent.start(hosts.a), subscriber: await Agent.start(hosts.b) };
  });
  after(() => {
    agents?.publisher.kill();
    agents?.subscriber.kill();
    hosts?.a.dispose();
    hosts?.b.dispose();
  });
  const started = (): { publisher: Agent; subscriber: Agent } => {
    if (agents === undefined) throw new Error("agentsOnTwoHosts: the agents start in the suite's before hook");
    return agents;
  };
  return {
    get publisher() {
      return started().publisher;
    },
    get subscriber() {
      return started().subscriber;
    },
  };
}
