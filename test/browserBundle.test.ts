import assert from 'node:assert/strict';
import { builtinModules } from 'node:module';
import { describe, it } from 'node:test';
import { build, type Plugin } from 'esbuild';

const builtins = new Set(builtinModules.flatMap((name) => [name, `node:${name}`]));

/** Records every import of a Node built-in, wherever in the graph it comes from. */
function builtinSpy(found: string[]): Plugin {
  return {
    name: 'node-builtin-spy',
    setup(pluginBuild) {
      pluginBuild.onResolve({ filter: /.*/ }, (args) => {
        const bare = args.path.startsWith('node:') ? args.path : (args.path.split('/')[0] ?? args.path);
        if (builtins.has(args.path) || builtins.has(bare)) {
          found.push(`${args.path} (imported by ${args.importer})`);
          return { path: args.path, external: true };
        }
        return undefined;
      });
    },
  };
}

async function bundle(entry: string | { contents: string }): Promise<{ found: string[]; code: string }> {
  const found: string[] = [];
  const result = await build({
    ...(typeof entry === 'string'
      ? { entryPoints: [entry] }
      : { stdin: { contents: entry.contents, resolveDir: process.cwd(), loader: 'ts' as const } }),
    bundle: true,
    write: false,
    platform: 'browser',
    format: 'esm',
    target: 'es2022',
    logLevel: 'silent',
    plugins: [builtinSpy(found)],
  });
  const code = result.outputFiles.map((file) => file.text).join('\n');
  return { found, code };
}

describe('renderer-safe entries', () => {
  for (const entry of ['src/index.ts', 'src/testing/index.ts', 'src/bridge/index.ts']) {
    it(`${entry} bundles for the browser without any Node built-in`, async () => {
      const { found, code } = await bundle(entry);
      assert.deepEqual(found, [], `Node built-ins pulled into ${entry}:\n${found.join('\n')}`);
      assert.ok(code.length > 1000, 'bundle unexpectedly empty');
    });
  }

  it('the spy itself catches a built-in (the test can fail)', async () => {
    const { found } = await bundle({
      contents: "import { tmpdir } from 'os'; import 'node:fs'; export const t = tmpdir;",
    });
    assert.deepEqual(
      found.map((f) => f.split(' ')[0]),
      ['os', 'node:fs'],
    );
  });
});
