/**
 * A LAN test participant, run inside a network namespace by the LAN tests
 * (never directly). Reads JSON commands from stdin, one per line, and writes
 * JSON reports to stdout, one per line:
 *
 * - `{op:'subscribe', id, namespace, options?, tag?}` → `{ev:'event', id, type, worker}`,
 *   `{ev:'error', id, error}`, `{ev:'diag', ...}` (diagnostics of that discovery)
 * - `{op:'snapshots', id, namespace, options?}` → `{ev:'snapshot', id, uids, at}` (per snapshot, `at` in ms since
 *   the command)
 * - `{op:'unsubscribe', id}`
 * - `{op:'publisher', id, namespace, options?}` → `{ev:'diag', ...}`
 * - `{op:'publish', id, seq, type, worker}` / `{op:'publishMany', id, seq, type, workers}` /
 *   `{op:'close', id, seq}` → `{ev:'done', seq, ms, error?}`
 * - `{op:'clock', offsetMs}` → `{ev:'clock'}`: from now on `Date.now()` is the real time plus `offsetMs`
 *   (a host whose wall clock is off)
 * - `{op:'end'}`: stop reading stdin and let the event loop drain (the
 *   process must then exit by itself once everything is released).
 */
import { createInterface } from 'node:readline';
import type { Subscription } from 'rxjs';
import { lanDiscovery } from '../../../../src/backends/lan/index.js';
import type { LanDiscoveryOptions } from '../../../../src/backends/lan/types.js';
import type { WorkerPublisher } from '../../../../src/discovery/types.js';
import type { DiscoveryEventType } from '../../../../src/events/types.js';
import type { WorkerInfo } from '../../../../src/model/types.js';

interface Command {
  readonly op: string;
  readonly id?: string;
  readonly seq?: number;
  readonly namespace?: string;
  readonly options?: LanDiscoveryOptions & { advertiseHostFn?: string };
  readonly tag?: string;
  readonly type?: DiscoveryEventType;
  readonly worker?: WorkerInfo;
  readonly workers?: WorkerInfo[];
  readonly offsetMs?: number;
}

function out(message: object): void {
  process.stdout.write(`${JSON.stringify(message)}\n`);
}

function errorJson(error: unknown): object {
  if (!(error instanceof Error)) return { message: String(error) };
  const { code, errno, key, host } = error as Error & {
    code?: unknown;
    errno?: unknown;
    key?: unknown;
    host?: unknown;
  };
  return { name: error.name, message: error.message, code, errno, key, host };
}

const subscriptions = new Map<string, Subscription>();
const publishers = new Map<string, WorkerPublisher>();
let advertiseCalls = 0;
const realNow = Date.now.bind(Date);

function options(command: Command): LanDiscoveryOptions {
  const { advertiseHostFn, ...rest } = command.options ?? {};
  if (advertiseHostFn === undefined) return rest;
  return {
    ...rest,
    advertiseHost: () => {
      advertiseCalls++;
      out({ ev: 'advertise-called', calls: advertiseCalls });
      return advertiseHostFn;
    },
  };
}

function discoveryFor(command: Command, id: string): ReturnType<typeof lanDiscovery> {
  const discovery = lanDiscovery(command.namespace ?? 'default', options(command));
  discovery.diagnostics.subscribe((diagnostic) =>
    out({ ev: 'diag', id, kind: diagnostic.kind, uid: diagnostic.uid, message: diagnostic.message }),
  );
  return discovery;
}

async function run(command: Command): Promise<void> {
  const id = command.id ?? '';
  const started = performance.now();
  const done = (error?: unknown): void =>
    out({
      ev: 'done',
      seq: command.seq,
      ms: performance.now() - started,
      ...(error === undefined ? {} : { error: errorJson(error) }),
    });
  switch (command.op) {
    case 'subscribe': {
      const discovery = discoveryFor(command, id);
      const subscription = discovery.events().subscribe({
        next: (event) =>
          out({
            ev: 'event',
            id,
            type: event.type,
            worker: event.worker,
            reason: event.reason,
            at: performance.timeOrigin + performance.now(),
          }),
        error: (error: unknown) => out({ ev: 'error', id, error: errorJson(error) }),
      });
      subscriptions.set(id, subscription);
      out({ ev: 'subscribed', id });
      return;
    }
    case 'snapshots': {
      const subscription = discoveryFor(command, id)
        .snapshots()
        .subscribe({
          next: (snapshot) => out({ ev: 'snapshot', id, uids: [...snapshot.keys()], at: performance.now() - started }),
          error: (error: unknown) => out({ ev: 'error', id, error: errorJson(error) }),
        });
      subscriptions.set(id, subscription);
      out({ ev: 'subscribed', id });
      return;
    }
    case 'unsubscribe':
      subscriptions.get(id)?.unsubscribe();
      subscriptions.delete(id);
      out({ ev: 'unsubscribed', id });
      return;
    case 'publisher':
      publishers.set(id, discoveryFor(command, id).publisher());
      out({ ev: 'publisher', id });
      return;
    case 'publish': {
      const publisher = publishers.get(id);
      if (publisher === undefined || command.type === undefined || command.worker === undefined)
        throw new Error(`bad publish ${JSON.stringify(command)}`);
      await publisher.publish(command.type, command.worker).then(() => done(), done);
      return;
    }
    case 'publishMany': {
      const publisher = publishers.get(id);
      if (publisher === undefined || command.type === undefined || command.workers === undefined)
        throw new Error('bad publishMany');
      const type = command.type;
      await Promise.all(command.workers.map((worker) => publisher.publish(type, worker))).then(() => done(), done);
      return;
    }
    case 'close': {
      const publisher = publishers.get(id);
      await (publisher?.close() ?? Promise.resolve()).then(() => done(), done);
      publishers.delete(id);
      return;
    }
    case 'clock': {
      const offset = command.offsetMs ?? 0;
      Date.now = () => realNow() + offset;
      out({ ev: 'clock', offsetMs: offset });
      return;
    }
    case 'end':
      lines.close();
      process.stdin.destroy();
      return;
    default:
      throw new Error(`unknown op ${command.op}`);
  }
}

const lines = createInterface({ input: process.stdin });
lines.on('line', (line) => {
  if (line.trim() === '') return;
  let command: Command;
  try {
    command = JSON.parse(line) as Command;
  } catch (error) {
    out({ ev: 'fatal', error: errorJson(error) });
    return;
  }
  run(command).catch((error: unknown) => out({ ev: 'fatal', error: errorJson(error) }));
});
process.on('uncaughtException', (error) => {
  out({ ev: 'uncaught', error: errorJson(error) });
  process.exit(70);
});
out({ ev: 'ready', pid: process.pid });
