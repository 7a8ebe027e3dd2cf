/**
 * The two-hosts harness itself (hosts.ts): each host sees only its own
 * `/dev/shm`, temp directory and network; the etcd answers both hosts at one
 * address; nothing is added to the root namespace; teardown leaves nothing.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { workerInfo } from '../../src/model/workerInfo.js';
import { shortHash, uniqueNamespace } from '../cli/children.js';
import { killRealWool, RealWool } from '../interop/realWool.js';
import { runningEtcdProcesses } from '../backends/etcd/etcdHarness.js';
import { assertBuiltCli, BUILT_CLI, startTwoHosts, type Host, type TwoHosts } from './hosts.js';

const SUBNET = 41;

/** The root namespace's interfaces (names), to show the harness adds none. */
function rootLinks(): string[] {
  const result = spawnSync('ip', ['-o', 'link', 'show'], { encoding: 'utf8' });
  assert.equal(result.status, 0, result.stderr);
  return result.stdout
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => line.split(':')[1]?.trim().split('@')[0] ?? line)
    .sort();
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** A put or a range through etcd's JSON gateway, from a host. */
function etcdCall(host: Host, endpoint: string, op: 'put' | 'range', key: string, value = ''): string {
  const b64 = (text: string): string => Buffer.from(text).toString('base64');
  const answer = host.etcdJson(
    endpoint,
    `/v3/kv/${op}`,
    op === 'put' ? { key: b64(key), value: b64(value) } : { key: b64(key) },
  ) as {
    kvs?: { value: string }[];
  };
  if (op === 'put') return 'ok';
  const kv = answer.kvs?.[0];
  return kv === undefined ? 'absent' : Buffer.from(kv.value, 'base64').toString();
}

it('a failed start (etcd not ready in time) removes what it made: the namespaces, their processes, etcd', async () => {
  const before = runningEtcdProcesses();
  const linksBefore = rootLinks();
  const purpose = `hf${process.pid % 1000}`;
  await assert.rejects(startTwoHosts(purpose, 42, { etcd: { readyTimeoutMs: 1 } }), /not ready after 1 ms/);
  const list = spawnSync('ip', ['netns', 'list'], { encoding: 'utf8' }).stdout;
  assert.ok(!list.includes(`woolrx-${purpose}`), `no namespace of the failed start is left: ${list}`);
  assert.equal(runningEtcdProcesses(), before, 'its etcd is stopped');
  assert.deepEqual(rootLinks(), linksBefore);
});

describe("two hosts on one machine (the relay tests' harness)", { timeout: 60_000 }, () => {
  let hosts: TwoHosts | undefined;
  let linksBefore: string[] = [];
  const marker = `woolrx-hosts-test-${process.pid}`;

  before(async () => {
    linksBefore = rootLinks();
    hosts = await startTwoHosts('hh', SUBNET);
  });
  after(async () => {
    rmSync(join('/dev/shm', marker), { force: true });
    rmSync(join(tmpdir(), marker), { force: true });
    await hosts?.dispose();
  });
  const started = (): TwoHosts => {
    assert.ok(hosts !== undefined, 'the hosts started');
    return hosts;
  };

  it("each host has its own /dev/shm and temp directory: a file made in one is in neither the other nor the machine's, and the machine's are not in them", () => {
    const { a, b } = started();
    // The machine's own /dev/shm and temp directory hold a marker a host must not see.
    writeFileSync(join('/dev/shm', marker), 'root');
    writeFileSync(join(tmpdir(), marker), 'root');
    for (const host of [a, b]) {
      const made = host.run('sh', [
        '-c',
        `echo ${host.label} > /dev/shm/${marker}-${host.label} && echo ${host.label} > "$TMPDIR/${marker}-${host.label}" && ls -A /dev/shm && echo -- && ls -A "$TMPDIR" && echo "$TMPDIR"`,
      ]);
      assert.equal(made.status, 0, made.stderr);
      assert.equal(
        made.stdout,
        `${marker}-${host.label}\n--\n${marker}-${host.label}\n/tmp\n`,
        `host ${host.label} sees only its own file in /dev/shm and its temp directory`,
      );
      // Mounted in the host's mount namespace, as tmpfs of its own.
      for (const [target, name] of [
        ['/dev/shm', 'shm'],
        ['/tmp', 'tmp'],
      ] as const) {
        // Stacked mounts are listed bottom first: the host's is the one on top.
        const mounts = host.run('findmnt', ['-n', '-o', 'TARGET,SOURCE,FSTYPE', '-M', target]);
        const top = mounts.stdout.trim().split('\n').at(-1) ?? '';
        assert.match(
          top,
          new RegExp(`^${target}\\s+woolrx-host-${host.label}-${name}\\s+tmpfs$`),
          `host ${host.label}'s ${target}: ${mounts.stdout}${mounts.stderr}`,
        );
      }
    }
    assert.deepEqual(a.shm(), [`${marker}-a`]);
    assert.deepEqual(b.shm(), [`${marker}-b`]);
    assert.deepEqual(a.tmp(), [`${marker}-a`]);
    assert.deepEqual(b.tmp(), [`${marker}-b`]);
    assert.deepEqual(a.leftovers(), [`/dev/shm/${marker}-a`, `/tmp/${marker}-a`]);
    for (const label of ['a', 'b']) {
      assert.equal(
        existsSync(join('/dev/shm', `${marker}-${label}`)),
        false,
        `host ${label}'s file is not in the machine's /dev/shm`,
      );
      assert.equal(
        existsSync(join(tmpdir(), `${marker}-${label}`)),
        false,
        `host ${label}'s file is not in the machine's temp directory`,
      );
    }
    assert.equal(readFileSync(join('/dev/shm', marker), 'utf8'), 'root');
    // The hosts' mounts are not the machine's.
    assert.doesNotMatch(readFileSync('/proc/self/mountinfo', 'utf8'), /woolrx-host-/);
    for (const host of [a, b]) {
      const removed = host.run('sh', ['-c', `rm /dev/shm/${marker}-${host.label} /tmp/${marker}-${host.label}`]);
      assert.equal(removed.status, 0, removed.stderr);
      assert.deepEqual(host.leftovers(), []);
    }
  });

  it("each host is its own network (its address, not the other's); one etcd answers both hosts at one address; the root namespace gains no interface", () => {
    const { a, b, endpoint } = started();
    assert.match(endpoint, new RegExp(`^http://10\\.218\\.${SUBNET}\\.1:\\d+$`));
    for (const [host, other] of [
      [a, b],
      [b, a],
    ] as const) {
      const addresses = host.run('ip', ['-o', '-4', 'addr', 'show']);
      assert.equal(addresses.status, 0, addresses.stderr);
      assert.ok(
        addresses.stdout.includes(` ${host.address}/24 `),
        `host ${host.label} has ${host.address}: ${addresses.stdout}`,
      );
      assert.ok(!addresses.stdout.includes(` ${other.address}/`), `host ${host.label} does not have ${other.address}`);
    }
    const key = `woolrx-hosts-test/${process.pid}`;
    assert.equal(etcdCall(a, endpoint, 'put', key, 'written on host a'), 'ok');
    assert.equal(etcdCall(b, endpoint, 'range', key), 'written on host a', 'host b reads what host a wrote: one etcd');
    assert.deepEqual(rootLinks(), linksBefore, 'no interface was added to the root namespace');
  });

  it('a host reaches the other on the link between them (where mDNS goes)', async () => {
    const { a, b } = started();
    const server = b.spawn(process.execPath, [
      '-e',
      `require('node:net').createServer((s) => s.end('hello from b')).listen(7400, '${b.address}', () => console.log('listening'))`,
    ]);
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error('no "listening" from the server on host b within 10 s')),
          10_000,
        );
        server.stdout?.once('data', () => {
          clearTimeout(timer);
          resolve();
        });
      });
      const client = a.run(process.execPath, [
        '-e',
        `require('node:net').connect(7400, '${b.address}').on('data', (d) => process.stdout.write(d)).setTimeout(5000, () => process.exit(1))`,
      ]);
      assert.equal(client.stdout, 'hello from b', `host a connects to ${b.address}:7400: ${client.stderr}`);
    } finally {
      server.kill('SIGKILL');
    }
  });

  it("the real wool runs in a host: its segment is in that host's /dev/shm only; the built woolrx lists its workers there and not on the other host; it leaves nothing", async () => {
    const { a, b } = started();
    const namespace = uniqueNamespace('hosts');
    const wool = await RealWool.start('local', namespace, { netns: a });
    try {
      const workers = [7101, 7102, 7103].map((port) =>
        workerInfo({ uid: randomUUID(), address: `127.0.0.1:${port}`, pid: wool.pid, version: '1.0.0' }),
      );
      for (const worker of workers) await wool.publish('worker-added', worker);
      assert.ok(a.shm().includes(shortHash(namespace)), `wool's segment is in host a's /dev/shm: ${a.shm().join(' ')}`);
      assert.equal(existsSync(join('/dev/shm', shortHash(namespace))), false, "and not in the machine's");
      assert.deepEqual(b.leftovers(), [], 'host b has nothing of it');
      assertBuiltCli();
      const list = (host: Host): string[] => {
        const result = host.run(process.execPath, [BUILT_CLI, 'list', '--namespace', namespace, '--json']);
        assert.equal(result.status, 0, `woolrx list on host ${host.label}: ${result.stderr}`);
        return result.stdout
          .split('\n')
          .filter((line) => line !== '')
          .map((line) => String((JSON.parse(line) as { uid?: unknown }).uid))
          .sort();
      };
      assert.deepEqual(list(a), workers.map((w) => w.uid).sort(), "woolrx on host a lists wool's workers");
      assert.deepEqual(list(b), [], 'woolrx on host b sees none of them');
      for (const worker of workers) await wool.publish('worker-dropped', worker);
      await wool.exit();
      // wool never removes its lock file and notification directory; a woolrx process leaving last does.
      assert.deepEqual(
        a.leftovers(),
        [`/tmp/wool-${namespace}`, `/tmp/wool-lock-${shortHash(namespace)}`].sort(),
        'wool left its own temp files, as a wool-only run does',
      );
      assert.deepEqual(list(a), [], 'a woolrx process comes and goes after wool left');
    } finally {
      killRealWool();
    }
    assert.deepEqual(a.leftovers(), [], 'wool and woolrx left nothing on host a');
    assert.deepEqual(b.leftovers(), [], 'nor on host b');
  });

  it("dispose() kills every process of every namespace, unmounts, deletes the namespaces and etcd's data directory", async () => {
    const twoHosts = started();
    const { a, b, etcd, etcdHost } = twoHosts;
    const sleeper = a.spawn('sleep', ['600']);
    const etcdPid = etcd.members[0]?.pid;
    assert.ok(etcdPid !== undefined && sleeper.pid !== undefined);
    const pids = [a.holderPid, b.holderPid, sleeper.pid, etcdPid];
    const names = [a.netns.name, b.netns.name, etcdHost.name];
    const dataDir = etcd.root;
    assert.ok(existsSync(dataDir));
    await twoHosts.dispose();
    // SIGKILLed processes are gone once reaped: give the event loop a moment.
    for (let i = 0; i < 50 && pids.some(alive); i++) await new Promise((resolve) => setTimeout(resolve, 100));
    assert.deepEqual(pids.filter(alive), [], 'no process of the hosts or the etcd host still runs');
    const list = spawnSync('ip', ['netns', 'list'], { encoding: 'utf8' }).stdout;
    for (const name of names) assert.ok(!list.includes(name), `namespace ${name} is deleted`);
    assert.equal(existsSync(dataDir), false, "etcd's data directory is removed");
    assert.deepEqual(
      readdirSync('/dev/shm').filter((entry) => entry.startsWith(`${marker}-`)),
      [],
      "no host's file surfaced in the machine's /dev/shm",
    );
    assert.deepEqual(rootLinks(), linksBefore);
  });
});
