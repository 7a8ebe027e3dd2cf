// A renderer that imports a Node-only entry by mistake: bundled for the
// browser, woolrx/local, woolrx/lan and woolrx/etcd resolve (package.json's
// "browser" condition) to a module that throws NodeOnlyEntryError naming
// woolrx/bridge — not to the backend, whose fs/os/dgram a bundler cannot
// resolve. Built for Node they still resolve to the backend. Uses dist/ (the
// built package, as a consumer's bundler sees it through package.json).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { describe, it } from 'node:test';
import { runInNewContext } from 'node:vm';
import { build } from 'esbuild';

const builtins = new Set(builtinModules.flatMap((name) => [name, `node:${name}`]));

/** The names the stand-in of woolrx/<name> exports (from its source). */
function standInNames(name: string): string[] {
  const text = readFileSync(`src/bridge/nodeOnly/${name}.ts`, 'utf8');
  return [...text.matchAll(/unavailable as (\w+)/g)].map((match) => match[1] ?? '').sort();
}

/** Bundles `contents` (imports of the entry) through the package's own exports (not tsconfig's paths to src/). */
async function bundle(contents: string, platform: 'browser' | 'node') {
  return build({
    stdin: { contents, resolveDir: process.cwd() },
    bundle: true,
    write: false,
    platform,
    format: platform === 'browser' ? 'iife' : 'esm',
    logLevel: 'silent',
    tsconfigRaw: {},
    metafile: true,
    external: platform === 'node' ? ['rxjs', 'multicast-dns', 'dns-packet', 'etcd3', ...builtins] : [],
  });
}

describe('a renderer that imports a Node-only entry', () => {
  for (const name of ['local', 'lan', 'etcd']) {
    const entry = `woolrx/${name}`;
    it(`${entry} bundles for the browser into a module that throws NodeOnlyEntryError naming woolrx/bridge`, async () => {
      const backend = (await import(`../src/backends/${name}/index.js`)) as Record<string, unknown>;
      const names = Object.keys(backend).sort();
      assert.deepEqual(standInNames(name), names, `the stand-in exports every name of ${entry}`);
      // The renderer's mistake, as written: named imports, used.
      const result = await bundle(
        `import { ${names.join(', ')} } from ${JSON.stringify(entry)};\nconsole.log(${names.join(', ')});`,
        'browser',
      );
      const inputs = Object.keys(result.metafile.inputs);
      assert.ok(inputs.includes(`dist/browser/${name}.js`), inputs.join('\n'));
      assert.deepEqual(
        inputs.filter((input) => input.includes('/backends/') || builtins.has(input)),
        [],
      );
      const code = result.outputFiles[0]?.text ?? '';
      assert.throws(
        () => runInNewContext(code, {}),
        (error: unknown) => {
          const { name: errorName, code: errorCode, entry: errorEntry, message } = error as Record<string, unknown>;
          assert.equal(errorName, 'NodeOnlyEntryError');
          assert.equal(errorCode, 'WOOLRX_NODE_ONLY_ENTRY');
          assert.equal(errorEntry, entry);
          assert.equal(
            message,
            `${entry} runs in Node.js only (a server, the Electron main process), not in a browser or an Electron renderer: ` +
              'in a renderer, use woolrx/bridge — exposeWorkers(discovery, port) where the backend runs, discoveryFrom(port) in the renderer',
          );
          return true;
        },
      );
    });

    it(`${entry} imported for its side effects alone is dropped in the browser (the package has none); built for Node it is the backend`, async () => {
      // sideEffects: false — an import that uses nothing bundles to nothing,
      // and nothing of the backend (fs, os, dgram) reaches the bundle.
      const bare = await bundle(`import ${JSON.stringify(entry)};`, 'browser');
      const bareInputs = Object.keys(bare.metafile.inputs);
      assert.deepEqual(
        bareInputs.filter((input) => input.includes('/backends/') || builtins.has(input)),
        [],
      );
      assert.doesNotThrow(() => runInNewContext(bare.outputFiles[0]?.text ?? '', {}));
      const inputs = Object.keys((await bundle(`import ${JSON.stringify(entry)};`, 'node')).metafile.inputs);
      assert.ok(inputs.includes(`dist/${name}/index.js`), inputs.join('\n'));
      assert.ok(!inputs.some((input) => input.startsWith('dist/browser/')));
    });
  }
});
