import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import type { Plugin } from 'esbuild';

/**
 * An esbuild plugin for the published build: every `import { X } from
 * '<name>'` in src/ (but the loader itself) is served by a CommonJS stand-in
 * whose exports are getters calling `src/backends/<name>/load<Name>.ts` on
 * first access. esbuild compiles named imports from CommonJS to property
 * reads at the point of use, so the optional package is loaded when it is
 * first used — never when the entry loads — and a missing one is a
 * `MissingDependencyError` rather than a failed import.
 *
 * The stand-in exports every name the installed package (a devDependency)
 * exports. Tests run the sources with the real package.
 * @param name The package (`'etcd3'`); its loader is `src/backends/etcd/loadEtcd3.ts`.
 * @returns The plugin.
 */
export function lazyOptionalModule(name: 'etcd3'): Plugin {
  const loaderFile = resolve('src/backends/etcd/loadEtcd3.ts');
  const names = Object.keys(createRequire(import.meta.url)(name) as object).filter((key) => key !== 'default' && key !== '__esModule');
  const namespace = `lazy-${name}`;
  return {
    name: `lazy-optional-${name}`,
    setup(build) {
      build.onResolve({ filter: new RegExp(`^${name}$`) }, (args) =>
        args.importer === loaderFile || args.namespace === namespace ? undefined : { path: name, namespace },
      );
      build.onLoad({ filter: /.*/, namespace }, () => ({
        resolveDir: resolve('.'),
        loader: 'js',
        contents: [
          `var load = require(${JSON.stringify(loaderFile)}).loadEtcd3;`,
          `var names = ${JSON.stringify(names)};`,
          'names.forEach(function (n) { Object.defineProperty(exports, n, { enumerable: true, get: function () { return load()[n]; } }); });',
        ].join('\n'),
      }));
    },
  };
}
