import pkg from '../../package.json' with { type: 'json' };

/** woolrx's own version, from package.json (inlined by the build). */
export const packageVersion: string = pkg.version;
