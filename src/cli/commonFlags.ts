import type { CliFlags } from './types.js';

/** Flags every command accepts. */
export const commonFlags: CliFlags = Object.freeze({
  namespace: { type: 'string', short: 'n', valueName: 'NS', description: 'The namespace (required)' },
  backend: { type: 'string', short: 'b', valueName: 'NAME', description: 'Discovery backend (default: local)' },
  help: { type: 'boolean', short: 'h', description: 'Show this help' },
});
