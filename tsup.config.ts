import { defineConfig, type Options } from 'tsup';
import { emptyModule } from './scripts/build/emptyModule.js';

/**
 * The library's public entries: listed here and in the `exports` map (and
 * `typesVersions`) of package.json. The core entry (`src/index.ts`) and
 * `testing` must stay free of Node built-ins (test/browserBundle.test.ts).
 */
const entry = {
  index: 'src/index.ts',
  'testing/index': 'src/testing/index.ts',
  'bridge/index': 'src/bridge/index.ts',
  'local/index': 'src/backends/local/index.ts',
  'lan/index': 'src/backends/lan/index.ts',
  'etcd/index': 'src/backends/etcd/index.ts',
  // What package.json's "browser" condition maps the Node-only entries to:
  // a module that throws NodeOnlyEntryError naming woolrx/bridge.
  'browser/local': 'src/bridge/nodeOnly/local.ts',
  'browser/lan': 'src/bridge/nodeOnly/lan.ts',
  'browser/etcd': 'src/bridge/nodeOnly/etcd.ts',
};

/**
 * Shared by both builds.
 * - rxjs is the peer; multicast-dns is a small plain-JS dependency
 *   reached only from the backend subpaths.
 * - protobufjs's minimal runtime (about 20 kB) is bundled, so the core has no
 *   dependency besides rxjs (its licence is in THIRD_PARTY_NOTICES.md);
 *   its optional `long` is left out (wool's messages have no 64-bit field).
 * - etcd3 (an optional peer, with grpc) is never imported at load time:
 *   woolrx/etcd imports only its types and loads it on first use
 *   (src/backends/etcd/loadEtcd3.ts); a missing one is a
 *   `MissingDependencyError` naming the package. The flock addon of
 *   woolrx/local is built by scripts/build/prebuilds.mjs into prebuilds/.
 * - No source maps: the package ships no sources for them to point at.
 * - `silent`: build output never mixes with a command's output (`npm start`).
 */
const common: Options = {
  target: 'node20',
  sourcemap: false,
  splitting: true,
  treeshake: true,
  // No shims in the library: tsup's `__dirname`/`import.meta.url` shims import
  // `path` and `url`, and with code splitting they land in a chunk that every
  // entry imports, the renderer-safe ones included (issue #21). The library
  // reads `import.meta.url` itself where it must, with a CommonJS fallback.
  shims: false,
  // No keepNames: its `static { __name(this, …) }` blocks make every class
  // impossible to tree-shake in a consumer's bundle (#21). The build is not
  // minified, so class names survive as written; test/package.test.ts checks
  // every exported error class's name in dist/.
  keepNames: false,
  silent: true,
  external: ['rxjs', 'multicast-dns', 'dns-packet', 'etcd3'],
  noExternal: ['protobufjs', 'long'],
  esbuildPlugins: [emptyModule('long')],
};

export default defineConfig([
  // The library: ESM + CJS with declarations for both.
  { ...common, entry, format: ['esm', 'cjs'], dts: true, clean: false },
  // The `woolrx` executable: ESM only, no declarations (it is not an API).
  {
    ...common,
    entry: { main: 'src/cli/main.ts' },
    format: ['esm'],
    dts: false,
    clean: false,
    outDir: 'dist/cli',
    shims: true,
  },
]);
