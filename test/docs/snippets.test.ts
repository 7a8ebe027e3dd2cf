// Every code snippet of README.md and docs/ (not docs/api/, which TypeDoc
// generates) runs as written against the packed package, so none can rot.
// The fenced block's info string says what it is:
//
//   ```ts               a complete ES module in TypeScript: saved as snippet.mts in a
//                       fresh consumer project ("type": "module", the tarball, rxjs,
//                       etcd3, tsx installed) and run with `node --import tsx`; it
//                       fails the test when it exits non-zero or runs over 30 s
//   ```js / ```mjs      a complete ES module in JavaScript: run with plain `node` (.mjs)
//   ```cjs              a complete CommonJS module: run with plain `node` (.cjs)
//   ```ts compile-only  a complete module that needs a server or root (etcd, mDNS on a
//                       LAN): type-checked, not run
//   ```ts fragment      an excerpt of a larger program (an interface sketch, one line
//                       of a pipeline): neither run nor compiled
//
// Every TypeScript snippet but the fragments (those that run and the compile-only
// ones) is type-checked with tsc against the packed package: strict, and
// noUnusedLocals (an import a snippet does not use is a mistake a reader copies).
// The README's snippets also run on the official Node 22, 24 and 26 binaries
// (scripts/install-node-versions.mjs, as test/package/nodeVersions.test.ts).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { REPO, ok, packWorkspace, type PackedWorkspace } from '../package/packedProject.js';

interface Snippet {
  /** `README.md:61` */
  readonly where: string;
  readonly lang: 'ts' | 'js' | 'mjs' | 'cjs';
  readonly mode: 'run' | 'compile-only' | 'fragment';
  readonly code: string;
}

const FENCE = /^```(ts|js|mjs|cjs)(?:[ \t]+([^\n]*))?\n([\s\S]*?)^```[ \t]*$/gm;

function markdownFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return path === join(REPO, 'docs/api') ? [] : markdownFiles(path);
    return name.endsWith('.md') ? [path] : [];
  });
}

function snippetsOf(path: string): Snippet[] {
  const text = readFileSync(path, 'utf8');
  return [...text.matchAll(FENCE)].map((match) => {
    const marker = (match[2] ?? '').trim();
    if (marker !== '' && marker !== 'compile-only' && marker !== 'fragment') {
      throw new Error(`${relative(REPO, path)}: unknown snippet marker ${JSON.stringify(marker)}`);
    }
    return {
      where: `${relative(REPO, path)}:${text.slice(0, match.index).split('\n').length}`,
      lang: match[1] as Snippet['lang'],
      mode: marker === '' ? 'run' : marker,
      code: match[3] ?? '',
    };
  });
}

const snippets = [join(REPO, 'README.md'), ...markdownFiles(join(REPO, 'docs'))].flatMap(snippetsOf);
const EXTENSION = { ts: 'mts', js: 'mjs', mjs: 'mjs', cjs: 'cjs' } as const;
const fileName = (snippet: Snippet, index: number): string =>
  `snippet${index}-${snippet.where.replace(/\W+/g, '-')}.${EXTENSION[snippet.lang]}`;

let ws: PackedWorkspace;
let project: string;

function runSnippet(node: string, file: string, lang: Snippet['lang']): void {
  const args = lang === 'ts' ? ['--import', 'tsx', file] : [file];
  const result = ws.run(node, args, project, { PATH: `${dirname(node)}:${ws.env['PATH'] ?? ''}` }, 30_000);
  const how =
    result.error === undefined
      ? `exit ${String(result.status ?? result.signal)}`
      : `${result.error.message} (over 30 s?)`;
  assert.equal(result.status, 0, `${file} on ${node}: ${how}\n${result.stdout}\n${result.stderr}`);
}

describe('the snippets of README.md and docs/', { timeout: 600_000 }, () => {
  before(() => {
    ws = packWorkspace('snippets');
    project = ws.project('snippets', 'module');
    ws.npmInstall(project, [
      ws.tarball,
      'rxjs@^7.8.0',
      'etcd3@^1.1.2',
      'tsx@^4',
      'typescript@~5.9.3',
      '@types/node@^20.19.0',
    ]);
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          module: 'nodenext',
          moduleResolution: 'nodenext',
          target: 'es2022',
          strict: true,
          noUnusedLocals: true,
          noEmit: true,
          skipLibCheck: true,
          types: ['node'],
        },
        include: ['*.mts', '*.cts'],
      }),
    );
    snippets.forEach((snippet, index) => writeFileSync(join(project, fileName(snippet, index)), snippet.code));
  });
  after(() => ws?.dispose());

  it('every fenced block has a known marker, and most of them run', () => {
    const counts = { run: 0, 'compile-only': 0, fragment: 0 };
    for (const snippet of snippets) counts[snippet.mode] += 1;
    assert.ok(counts.run >= 5, `snippets that run: ${counts.run}`);
    assert.ok(
      snippets.some((s) => s.where.startsWith('README.md') && s.mode === 'run'),
      "the README's Use snippet runs",
    );
  });

  snippets.forEach((snippet, index) => {
    if (snippet.mode !== 'run') return;
    it(`${snippet.where} runs on ${process.version}`, () =>
      runSnippet(process.execPath, fileName(snippet, index), snippet.lang));
  });

  it('every TypeScript snippet that runs or is compile-only type-checks against the packed package (tsc, strict, noUnusedLocals)', () => {
    const files = snippets.flatMap((snippet, index) =>
      snippet.lang === 'ts' && snippet.mode !== 'fragment' ? [fileName(snippet, index)] : [],
    );
    assert.ok(files.length >= 10, `TypeScript snippets checked: ${files.length}`);
    const config = join(project, 'tsconfig.snippets.json');
    writeFileSync(config, JSON.stringify({ extends: './tsconfig.json', include: files }));
    ok(
      ws.run(process.execPath, [join(project, 'node_modules/typescript/bin/tsc'), '-p', config], project),
      `tsc ${files.join(' ')}`,
    );
  });

  it("the README's snippets run on Node 22, 24 and 26 (the official binaries)", { timeout: 600_000 }, () => {
    const out = execFileSync(
      process.execPath,
      [join(REPO, 'scripts/install-node-versions.mjs'), 'x64:22', 'x64:24', 'x64:26'],
      {
        encoding: 'utf8',
        timeout: 600_000,
      },
    );
    const nodes = out
      .trim()
      .split('\n')
      .map((line) => line.split(' ')[2] ?? '');
    assert.equal(nodes.length, 3, out);
    snippets.forEach((snippet, index) => {
      if (snippet.mode !== 'run' || !snippet.where.startsWith('README.md')) return;
      for (const node of nodes) runSnippet(node, fileName(snippet, index), snippet.lang);
    });
  });
});
