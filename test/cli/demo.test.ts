import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { PassThrough } from 'node:stream';
import { runCli } from '../../src/cli/runCli.js';
import { residue, shortHash, sweep, woolrx } from './children.js';

interface Line {
  type: 'worker-added' | 'worker-updated' | 'worker-dropped';
  worker: { uid: string; pid: number; tags: string[]; extra: Record<string, string> };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

const swept: { namespace: string; uids: string[] }[] = [];
after(() => {
  for (const { namespace, uids } of swept) sweep(namespace, uids);
});

describe('woolrx demo', () => {
  it('off a terminal: NDJSON of added, updated, a killed worker dropped, a replacement added; exits 0 leaving nothing behind', async () => {
    const child = woolrx(['demo', '--duration', '4', '--workers', '3']);
    const lines: string[] = [];
    for (;;) {
      try {
        lines.push(await child.line(60_000));
      } catch {
        break;
      }
    }
    const exit = await child.exited;
    const namespace = /on namespace (\S+);/.exec(child.stderr)?.[1];
    assert.ok(namespace !== undefined, `no summary on stderr: ${child.stderr}`);
    const events = lines.map((line) => JSON.parse(line) as Line);
    const uids = [...new Set(events.map((event) => event.worker.uid))];
    swept.push({ namespace, uids });
    assert.deepEqual(exit, { code: 0, signal: null }, child.stderr);

    // The kill is announced on stderr with the victim's short uid and pid.
    const killed = /SIGKILL worker ([0-9a-f]{8}) \(pid (\d+)\)/.exec(child.stderr);
    assert.ok(killed !== null, `no kill announced: ${child.stderr}`);
    const [, victimShort, victimPid] = killed;

    const added = events.filter((event) => event.type === 'worker-added');
    const updated = events.filter((event) => event.type === 'worker-updated');
    const dropped = events.filter((event) => event.type === 'worker-dropped');
    assert.equal(added.length, 4, 'three workers and a replacement');
    assert.equal(new Set(added.map((event) => event.worker.uid)).size, 4);
    assert.ok(updated.length >= 1, 'at least one update');
    assert.ok(
      updated.some((event) => event.worker.tags.includes('busy')),
      'the tag change is published',
    );
    // Every worker is dropped exactly once: the killed one by the liveness check, the others at shutdown.
    assert.deepEqual(dropped.map((event) => event.worker.uid).sort(), added.map((event) => event.worker.uid).sort());
    const victimIndex = events.findIndex(
      (event) => event.type === 'worker-dropped' && event.worker.uid.startsWith(victimShort ?? '?'),
    );
    assert.ok(victimIndex >= 0, 'the killed worker is dropped');
    assert.equal(events[victimIndex]?.worker.pid, Number(victimPid));
    const replacementIndex = events.findIndex((event, index) => index > victimIndex && event.type === 'worker-added');
    assert.ok(replacementIndex > victimIndex, 'a replacement is added after the drop');
    // The killed worker's drop comes before the shutdown's drops.
    assert.ok(
      events.slice(0, replacementIndex).filter((event) => event.type === 'worker-dropped').length === 1,
      'only the killed worker dropped before the replacement',
    );
    assert.match(child.stderr, /events: 4 added, \d+ updated, 4 dropped/);
    assert.match(child.stderr, /namespace empty/);

    // Nothing left behind: no worker process, no shared-memory object, no file.
    const pids = [...new Set(events.map((event) => event.worker.pid))];
    assert.equal(pids.length, 4);
    assert.deepEqual(pids.filter(alive), [], 'worker processes still running');
    assert.deepEqual(residue(namespace, uids), []);
    const lockDir = `/dev/shm/woolrx-lock-${shortHash(namespace)}`;
    assert.equal(existsSync(lockDir), false, `${lockDir} left behind`);
    assert.deepEqual(
      readdirSync('/dev/shm').filter((name) =>
        [shortHash(namespace), ...uids.map((uid) => shortHash(uid.replaceAll('-', '')))].includes(name),
      ),
      [],
    );
  });

  it('refuses bad arguments with status 2 before starting anything', async () => {
    for (const argv of [
      ['demo', '--workers', '0'],
      ['demo', '--workers', 'many'],
      ['demo', '--duration', '-1'],
      ['demo', '--duration', ''],
      ['demo', '--backend', 'etcd'],
      ['demo', '--as-worker', '{"uid":1}'],
    ]) {
      const stdout = new PassThrough();
      const stderr = new PassThrough();
      let err = '';
      stderr.on('data', (chunk: Buffer) => {
        err += chunk.toString();
      });
      const code = await runCli(argv, { stdout, stderr, signal: new AbortController().signal });
      assert.equal(code, 2, `${argv.join(' ')}: ${err}`);
      assert.match(err, /^woolrx demo: /, argv.join(' '));
    }
  });
});
