import { createRequire } from 'node:module';

/**
 * Node's `require`, resolving from woolrx's location: from `import.meta.url`
 * (the ESM build; the CJS build gets it from `__filename`), or — when an
 * application bundled woolrx into a CommonJS bundle, where `import.meta` is
 * empty — from the application's main module (the bundle), which resolves
 * from the application's `node_modules`. Never a bare `require`: the bundler
 * would then add its dynamic-require helper to the chunk that the
 * renderer-safe entries share, and webpack warns about it there.
 * @returns The resolver, or `undefined` where there is none (not Node).
 * @internal
 */
export function nodeRequire(): NodeJS.Require | undefined {
  const url = (import.meta as { url?: string }).url;
  if (url !== undefined) return createRequire(url);
  const main = (process as { mainModule?: { filename?: string } }).mainModule;
  return main?.filename === undefined ? undefined : createRequire(main.filename);
}
