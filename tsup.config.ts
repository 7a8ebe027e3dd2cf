import { defineConfig } from 'tsup';

/**
 * One build, two formats. Every public entry is listed here and in the
 * `exports` map of package.json; the core entry (`src/index.ts`) and
 * `testing` must stay free of Node built-ins (test/browserBundle.test.ts).
 */
export default defineConfig({
  entry: {
    index: 'src/index.ts',
    'testing/index': 'src/testing/index.ts',
    'bridge/index': 'src/bridge/index.ts',
    'local/index': 'src/backends/local/index.ts',
    'lan/index': 'src/backends/lan/index.ts',
    'etcd/index': 'src/backends/etcd/index.ts',
    'cli/main': 'src/cli/main.ts',
  },
  format: ['esm', 'cjs'],
  dts: true,
  sourcemap: true,
  clean: true,
  splitting: true,
  treeshake: true,
  target: 'node20',
  // Dependencies stay external (installed alongside); native and Node-only
  // ones are only reached from the backend subpaths.
  external: ['rxjs', 'fs-ext', 'proper-lockfile', 'etcd3', 'bonjour-service', 'multicast-dns'],
});
