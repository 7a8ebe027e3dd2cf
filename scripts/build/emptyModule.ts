import type { Plugin } from 'esbuild';

/**
 * An esbuild plugin resolving a package to `module.exports = null`: for
 * protobufjs's optional `require("long")` (64-bit integers), which wool's
 * `WorkerMetadata` (int32 and strings only) never needs. protobufjs then works
 * without it, as it does when `long` is not installed.
 * @param name The package.
 * @returns The plugin.
 */
export function emptyModule(name: string): Plugin {
  const namespace = `empty-${name}`;
  return {
    name: `empty-${name}`,
    setup(build) {
      build.onResolve({ filter: new RegExp(`^${name}$`) }, () => ({ path: name, namespace }));
      build.onLoad({ filter: /.*/, namespace }, () => ({ contents: 'module.exports = null;', loader: 'js' }));
    },
  };
}
