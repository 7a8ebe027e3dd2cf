/**
 * AdvertisePolicy: which port and addresses a LAN publisher announces a
 * worker with. No mDNS here (the wildcard case asks the kernel for a route
 * by connecting a UDP socket, which sends nothing); the same rules are
 * checked end to end, in network namespaces, by publisherRules.test.ts and
 * twoHosts.test.ts.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { AdvertiseHostError } from '../../../src/backends/lan/AdvertiseHostError.js';
import { AdvertisePolicy } from '../../../src/backends/lan/AdvertisePolicy.js';
import { defaultRouteAddress } from '../../../src/backends/lan/defaultRouteAddress.js';
import type { AdvertiseHost } from '../../../src/backends/lan/types.js';
import { workerInfo } from '../../../src/model/workerInfo.js';
import { Netns } from './netns.js';

const ROUTE_CHILD = fileURLToPath(new URL('./children/advertiseRoute.ts', import.meta.url));
const spaces: Netns[] = [];
after(() => {
  for (const netns of spaces) netns.dispose();
});

function worker(address: string) {
  return workerInfo({ uid: randomUUID(), address, pid: 1, version: '1' });
}

function policy(advertiseHost?: AdvertiseHost): {
  policy: AdvertisePolicy;
  warnings: { message: string; uid: string }[];
} {
  const warnings: { message: string; uid: string }[] = [];
  return { policy: new AdvertisePolicy(advertiseHost, (message, uid) => warnings.push({ message, uid })), warnings };
}

describe('AdvertisePolicy', () => {
  it("advertises a worker's own IP address and port", async () => {
    const { policy: p, warnings } = policy();
    assert.deepEqual(await p.addressOf(worker('10.1.2.3:7000')), { port: 7000, ipv4: ['10.1.2.3'], ipv6: [] });
    assert.deepEqual(await p.addressOf(worker('[fd00::5]:7001')), { port: 7001, ipv4: [], ipv6: ['fd00::5'] });
    assert.deepEqual(warnings, []);
  });

  it('advertises a loopback host as is, with a warning naming the worker and the fix', async () => {
    const { policy: p, warnings } = policy();
    const w = worker('127.0.0.1:7002');
    assert.deepEqual(await p.addressOf(w), { port: 7002, ipv4: ['127.0.0.1'], ipv6: [] });
    assert.equal(warnings.length, 1);
    assert.equal(warnings[0]?.uid, w.uid);
    assert.match(warnings[0]?.message ?? '', /loopback address 127\.0\.0\.1.*advertiseHost \(CLI: --advertise-host\)/);
  });

  it('advertises advertiseHost for every worker, whatever its host, without a loopback warning', async () => {
    const { policy: p, warnings } = policy('10.9.9.9');
    for (const address of ['127.0.0.1:7003', '0.0.0.0:7004', '10.1.2.3:7005']) {
      const { ipv4, ipv6 } = await p.addressOf(worker(address));
      assert.deepEqual({ ipv4, ipv6 }, { ipv4: ['10.9.9.9'], ipv6: [] }, address);
    }
    assert.deepEqual(warnings, []);
  });

  it('calls an advertiseHost function lazily, once, and resolves a host name it returns', async () => {
    let calls = 0;
    const { policy: p } = policy(async () => {
      calls++;
      await Promise.resolve();
      return 'localhost';
    });
    assert.equal(calls, 0, 'not called before the first worker');
    const [first, second] = await Promise.all([
      p.addressOf(worker('0.0.0.0:7006')),
      p.addressOf(worker('10.0.0.1:7007')),
    ]);
    assert.equal(calls, 1);
    assert.ok(first.ipv4.includes('127.0.0.1'), JSON.stringify(first));
    assert.deepEqual(second.ipv4, first.ipv4);
    assert.deepEqual([first.port, second.port], [7006, 7007]);
  });

  it('rejects an advertiseHost function returning a wildcard or a non-string with a TypeError naming it', async () => {
    await assert.rejects(
      policy(() => '0.0.0.0').policy.addressOf(worker('10.0.0.1:7008')),
      /^TypeError: advertiseHost returned "0\.0\.0\.0"/,
    );
    await assert.rejects(
      policy(() => 42 as never).policy.addressOf(worker('10.0.0.1:7008')),
      /^TypeError: advertiseHost returned 42/,
    );
  });

  it('rejects a unix address with a TypeError', async () => {
    const w = worker('unix:/tmp/worker.sock');
    await assert.rejects(
      policy().policy.addressOf(w),
      (error: unknown) =>
        error instanceof TypeError && error.message.includes(w.uid) && /unix socket/.test(error.message),
    );
  });

  it("replaces a wildcard host by this host's default-route address, or rejects with AdvertiseHostError without one", async () => {
    const route = await defaultRouteAddress(4);
    const pending = policy().policy.addressOf(worker('0.0.0.0:7009'));
    if (route === undefined) {
      await assert.rejects(
        pending,
        (error: unknown) => error instanceof AdvertiseHostError && error.host === '0.0.0.0',
      );
    } else {
      assert.deepEqual(await pending, { port: 7009, ipv4: [route], ipv6: [] });
    }
  });

  it('finds the default-route address once per publisher: an update never moves a known worker (as wool)', async () => {
    // A namespace of our own with a veth pair (both ends inside it) and a
    // default route we move between two addresses. Nothing is sent (a UDP
    // connect only asks the kernel for a route).
    const netns = Netns.create('route');
    spaces.push(netns);
    netns.ip('link', 'add', 'wrxd0', 'type', 'veth', 'peer', 'name', 'wrxd1');
    netns.ip('link', 'set', 'wrxd1', 'up');
    netns.ip('link', 'set', 'wrxd0', 'up');
    netns.ip('addr', 'add', '10.214.0.2/24', 'dev', 'wrxd0');
    netns.ip('addr', 'add', '10.214.1.2/24', 'dev', 'wrxd0');
    netns.ip('route', 'add', 'default', 'via', '10.214.0.1', 'src', '10.214.0.2');
    const child = netns.spawnNode(ROUTE_CHILD);
    const lines: string[] = [];
    let err = '';
    let buffer = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      const parts = buffer.split('\n');
      buffer = parts.pop() ?? '';
      lines.push(...parts.filter((line) => line !== ''));
    });
    child.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString()));
    const line = async (n: number): Promise<Record<string, { port: number; ipv4: string[] }>> => {
      const deadline = Date.now() + 20_000;
      while (lines.length <= n) {
        if (Date.now() > deadline || child.exitCode !== null) throw new Error(`route child: no line ${n}: ${err}`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      return JSON.parse(lines[n] ?? '') as Record<string, { port: number; ipv4: string[] }>;
    };
    assert.deepEqual((await line(0))['first'], { port: 7100, ipv4: ['10.214.0.2'], ipv6: [] });
    netns.ip('route', 'replace', 'default', 'via', '10.214.1.1', 'src', '10.214.1.2');
    child.stdin?.write('moved\n');
    const answer = await line(1);
    assert.deepEqual(answer['updated'], { port: 7100, ipv4: ['10.214.0.2'], ipv6: [] }, 'an update keeps the address');
    assert.deepEqual(
      answer['added'],
      { port: 7101, ipv4: ['10.214.0.2'], ipv6: [] },
      'the same publisher keeps its address',
    );
    assert.deepEqual(
      answer['fresh'],
      { port: 7101, ipv4: ['10.214.1.2'], ipv6: [] },
      'a new publisher finds the new route',
    );
    child.stdin?.end();
  });
});
