// The Python snippets of docs/interop-wool.md ("Both sides, on one host"),
// run as written against the real wool, each with woolrx on the other side:
// wool publishes and `woolrx watch --json` sees it; `woolrx publish` and
// wool's subscriber prints it. Only the namespace is made unique.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Child, repoRoot, residue, sweep, uniqueNamespace, woolrx } from '../cli/children.js';
import { assertRealWool, WOOL_PYTHON } from './realWool.js';

/** The ```python block of docs/interop-wool.md whose first line is `# <name>`. */
function snippet(name: string): string {
  const text = readFileSync(join(repoRoot, 'docs/interop-wool.md'), 'utf8');
  const block = [...text.matchAll(/^```python\n([\s\S]*?)^```$/gm)]
    .map((match) => match[1] ?? '')
    .find((code) => code.startsWith(`# ${name}\n`));
  assert.ok(block !== undefined, `docs/interop-wool.md has a python block starting with "# ${name}"`);
  assert.ok(block.includes('"pool"'), 'the snippet names its namespace "pool"');
  return block;
}

/** wool's own files, which it leaves when it is the last one out (docs/interop-wool.md). */
function onlyWoolFiles(left: readonly string[], namespace: string): void {
  for (const path of left)
    assert.match(path, new RegExp(`/(wool-lock-[\\w-]{30}|wool-${namespace})$`), `left behind: ${path}`);
}

describe('docs/interop-wool.md: the wool-side snippets, run against the real wool', { timeout: 120_000 }, () => {
  let dir: string;
  const children: Child[] = [];
  before(() => {
    assertRealWool();
    dir = mkdtempSync(join(tmpdir(), 'woolrx-docs-py-'));
  });
  after(async () => {
    for (const child of children) await child.stop('SIGKILL', 5000);
    rmSync(dir, { recursive: true, force: true });
  });

  function python(name: string, namespace: string): Child {
    const file = join(dir, name);
    writeFileSync(file, snippet(name).replaceAll('"pool"', JSON.stringify(namespace)));
    const child = new Child(WOOL_PYTHON, [file]);
    children.push(child);
    return child;
  }

  it('publish_with_wool.py: woolrx watch --json sees wool add the worker, then drop it on Enter', async () => {
    const namespace = uniqueNamespace('docs-wool-pub');
    let uid = '';
    try {
      const wool = python('publish_with_wool.py', namespace);
      const line = await wool.line(30_000);
      const match = /^published ([0-9a-f-]{36}); press Enter to withdraw it$/.exec(line);
      assert.ok(match, line);
      uid = match[1] ?? '';
      const watch = woolrx(['watch', '-n', namespace, '--json']);
      children.push(watch);
      const worker = {
        uid,
        address: '127.0.0.1:50051',
        pid: wool.process.pid,
        version: '0.13.1',
        tags: ['gpu'],
        extra: {},
        secure: false,
      };
      assert.deepEqual(await watch.event(), { type: 'worker-added', worker });
      wool.process.stdin.write('\n');
      assert.deepEqual(await watch.event(), { type: 'worker-dropped', worker });
      assert.deepEqual(await wool.exited, { code: 0, signal: null }, wool.stderr);
      assert.deepEqual(await watch.stop('SIGTERM'), { code: 0, signal: null });
      assert.equal(watch.stderr, '');
    } finally {
      assert.deepEqual(sweep(namespace, uid === '' ? [] : [uid]), [], 'woolrx, last out, removes what wool left');
    }
  });

  it('watch_with_wool.py: wool prints the worker woolrx publish adds, and ends at its drop', async () => {
    const namespace = uniqueNamespace('docs-wool-sub');
    let uid = '';
    try {
      const wool = python('watch_with_wool.py', namespace);
      const publisher = woolrx(['publish', '-n', namespace, '-a', '127.0.0.1:50051', '--tag', 'gpu']);
      children.push(publisher);
      uid = await publisher.line();
      assert.equal(await wool.line(30_000), `worker-added ${uid} 127.0.0.1:50051 ['gpu']`);
      assert.deepEqual(await publisher.stop('SIGINT'), { code: 0, signal: null });
      for (;;) {
        const line = await wool.line(30_000);
        if (line.startsWith('worker-updated ')) continue; // wool re-reports a worker it saw before (docs: what wool does differently)
        assert.equal(line, `worker-dropped ${uid} 127.0.0.1:50051 ['gpu']`);
        break;
      }
      assert.deepEqual(await wool.exited, { code: 0, signal: null }, wool.stderr);
    } finally {
      // wool left last: its lock file and notification folder stay (documented); nothing else may.
      const left = residue(namespace, uid === '' ? [] : [uid]);
      sweep(namespace, uid === '' ? [] : [uid]);
      onlyWoolFiles(left, namespace);
    }
  });
});
