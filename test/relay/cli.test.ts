// `woolrx relay` as a process (from source): bad input is one line naming
// the fix and status 2; SIGINT and SIGHUP (SIGTERM: see etcd.test.ts) make it
// withdraw what it relayed and exit 0; piped, it prints NDJSON status items.
// Relayed from a real etcd into a local namespace.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { etcdDiscovery } from '../../src/backends/etcd/etcdDiscovery.js';
import { localDiscovery } from '../../src/backends/local/localDiscovery.js';
import type { WorkerInfo } from '../../src/model/types.js';
import { workerInfo } from '../../src/model/workerInfo.js';
import { RELAY_MARK } from '../../src/relay/RELAY_MARK.js';
import type { RelayStatus, RelayStatusUpdate } from '../../src/relay/types.js';
import { startEtcd, type EtcdCluster } from '../backends/etcd/etcdHarness.js';
import { Recorder, waitFor } from '../backends/local/helpers.js';
import { residue, sweep, uniqueNamespace, woolrx } from '../cli/children.js';

const HELP = /^Run 'woolrx relay --help' for the options\.$/;

describe('woolrx relay: bad input', { timeout: 60_000 }, () => {
  const ns = uniqueNamespace('relay-mistakes');
  const cases: [string[], RegExp][] = [
    [
      ['relay', '-n', ns, '--to', 'etcd', '--endpoints', 'http://127.0.0.1:1'],
      /^woolrx relay: missing --from \(one of local, lan, etcd\)$/,
    ],
    [
      ['relay', '--from', 'shm', '-n', ns, '--to', 'etcd'],
      /^woolrx relay: unknown backend "shm" for --from \(known: local, lan, etcd\)$/,
    ],
    [
      ['relay', '--from', 'local', '-n', ns, '--to', 'consul'],
      /^woolrx relay: unknown backend "consul" for --to \(known: local, lan, etcd\)$/,
    ],
    [
      ['relay', '--from', 'local', '-n', ns, '--to', 'etcd'],
      /^woolrx relay: --to etcd needs --endpoints URL\[,URL\] \(the etcd cluster's client URLs, e\.g\. http:\/\/10\.0\.0\.5:2379\)$/,
    ],
    [
      ['relay', '--from', 'etcd', '-n', ns, '--to', 'local', '--to-namespace', `${ns}-2`],
      /^woolrx relay: --from etcd needs --endpoints URL\[,URL\]/,
    ],
    [
      ['relay', '--from', 'local', '-n', ns, '--to', 'lan', '--advertise-host', '127.0.0.1'],
      /^woolrx relay: --advertise-host "127\.0\.0\.1" is a loopback host: pass this host's address on the network the target spans \(e\.g\. --advertise-host 10\.0\.0\.7\)$/,
    ],
    [
      ['relay', '--from', 'local', '-n', ns, '--to', 'lan', '--advertise-host', '0.0.0.0'],
      /^woolrx relay: --advertise-host "0\.0\.0\.0" is a wildcard host: pass this host's address/,
    ],
    [
      ['relay', '--from', 'local', '-n', ns, '--to', 'local'],
      /^woolrx relay: --from and --to are both local namespace "[^"]+": pass --to-namespace NS2, or another --to$/,
    ],
    [
      ['relay', '--from', 'local', '-n', ns, '--to', 'local', '--to-namespace', `${ns}-2`],
      /^woolrx relay: --from local --to local: one host's shared memory names a worker's block by its uid, so a worker cannot be in two local namespaces at once; relay into etcd or lan$/,
    ],
    [
      ['relay', '--from', 'lan', '-n', ns, '--to', 'lan', '--to-namespace', ns],
      /^woolrx relay: --from and --to are both lan namespace/,
    ],
    [
      ['relay', '-b', 'etcd', '--from', 'local', '-n', ns, '--to', 'etcd'],
      /^woolrx relay: --backend does not apply to relay; name the backends with --from and --to$/,
    ],
    [
      ['relay', '--from', 'local', '-n', ns, '--to', 'lan', '--endpoints', 'http://127.0.0.1:1'],
      /^woolrx relay: --endpoints is an option of etcd, and neither --from nor --to is etcd$/,
    ],
  ];
  for (const [args, reason] of cases) {
    it(`woolrx ${args.join(' ').replaceAll(ns, 'NS')}`, async () => {
      const child = woolrx(args);
      assert.deepEqual(await child.exited, { code: 2, signal: null }, child.stderr);
      const lines = child.stderr.split('\n');
      assert.equal(lines.length, 3, `two lines on stderr, got:\n${child.stderr}`);
      assert.match(lines[0] ?? '', reason);
      assert.match(lines[1] ?? '', HELP);
      assert.deepEqual(child.pending(), [], 'nothing on stdout');
    });
  }
});

describe('woolrx relay: signals and NDJSON', { timeout: 120_000 }, () => {
  let etcd: EtcdCluster | undefined;
  const namespaces: string[] = [];
  const uids: string[] = [];
  before(async () => {
    etcd = await startEtcd();
  });
  after(async () => {
    for (const ns of namespaces) sweep(ns, uids);
    await etcd?.dispose();
  });

  /** Publishes `workers` in a fresh etcd namespace; relays them into a fresh local namespace with `woolrx relay`. */
  async function relayed(workers: readonly WorkerInfo[], flags: readonly string[]) {
    const endpoints = (etcd as EtcdCluster).endpoints.join(',');
    const from = uniqueNamespace('relay-from');
    const to = uniqueNamespace('relay-to');
    namespaces.push(to);
    uids.push(...workers.map((w) => w.uid));
    const publisher = etcdDiscovery(from, { endpoints }).publisher();
    for (const w of workers) await publisher.publish('worker-added', w);
    const seen = new Recorder(localDiscovery(to).events());
    const relay = woolrx([
      'relay',
      '--from',
      'etcd',
      '--endpoints',
      endpoints,
      '-n',
      from,
      '--to',
      'local',
      '--to-namespace',
      to,
      ...flags,
    ]);
    const items: RelayStatus[] = [];
    const readUntil = async (done: (item: RelayStatus) => boolean): Promise<void> => {
      for (;;) {
        const item = JSON.parse(await relay.line(20_000)) as RelayStatus;
        items.push(item);
        if (done(item)) return;
      }
    };
    const close = async (): Promise<void> => {
      await relay.stop('SIGKILL');
      seen.stop();
      await publisher.close();
    };
    return { relay, seen, items, readUntil, close, to };
  }

  const worker = (n: number, tags: string[] = []): WorkerInfo =>
    workerInfo({ uid: crypto.randomUUID(), address: `127.0.0.1:${7100 + n}`, pid: 4242, version: '1', tags });

  for (const signal of ['SIGINT', 'SIGHUP'] as const) {
    it(`${signal}: withdraws every relayed worker and exits 0; every stdout line is a JSON status item`, async () => {
      const workers = [worker(1), worker(2)];
      const run = await relayed(workers, ['--relay-id', 'cli-test']);
      try {
        await run.readUntil((item) => item.type === 'relay-status' && item.synced && item.relayed === 2);
        await waitFor(() => run.seen.workers.size === 2, 'two relayed workers in the target');
        for (const w of workers) {
          const copy = run.seen.workers.get(w.uid);
          assert.equal(copy?.address, w.address, 'a local target keeps loopback addresses');
          assert.equal(copy?.extra[RELAY_MARK], 'cli-test');
          assert.equal(copy?.pid, run.relay.process.pid, "a local target's copy lives with the relay's process");
        }
        assert.deepEqual(await run.relay.stop(signal), { code: 0, signal: null }, run.relay.stderr);
        await waitFor(() => run.seen.workers.size === 0, 'withdrawn', 3000);
        for (;;) {
          try {
            run.items.push(JSON.parse(await run.relay.line(2000)) as RelayStatus);
          } catch {
            break; // stdout ended
          }
        }
        assert.ok(
          run.items.every((item) => typeof item === 'object' && item !== null && item.type.startsWith('relay-')),
          JSON.stringify(run.items),
        );
        assert.deepEqual(run.items.at(-1), {
          type: 'relay-status',
          relayed: 0,
          skipped: 0,
          pending: 0,
          target: 'up',
          synced: true,
        });
        assert.equal(run.relay.stderr, '');
      } finally {
        await run.close();
      }
      await waitFor(() => residue(run.to, uids).length === 0, 'nothing left in /dev/shm or the temp directory', 3000);
    });
  }

  it('--tag: relays only workers having every given tag', async () => {
    const gpu = worker(1, ['gpu', 'eu']);
    const cpu = worker(2, ['eu']);
    const run = await relayed([gpu, cpu], ['--tag', 'gpu', '--tag', 'eu', '--json']);
    try {
      await run.readUntil((item) => item.type === 'relay-status' && item.synced);
      await waitFor(() => run.seen.workers.size === 1, 'one relayed worker');
      assert.ok(run.seen.workers.has(gpu.uid));
      const last = run.items.filter((item): item is RelayStatusUpdate => item.type === 'relay-status').at(-1);
      assert.equal(last?.relayed, 1, 'the synced status counts one relayed worker');
      assert.deepEqual(await run.relay.stop('SIGTERM'), { code: 0, signal: null }, run.relay.stderr);
      await waitFor(() => run.seen.workers.size === 0, 'withdrawn', 3000);
    } finally {
      await run.close();
    }
  });
});
