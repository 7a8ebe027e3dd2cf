import { etcdBackend } from './etcdBackend.js';
import { lanBackend } from './lanBackend.js';
import { localBackend } from './localBackend.js';
import type { CliBackend } from './types.js';

/** The backend of a command line without `--backend`. */
export const DEFAULT_BACKEND = 'local';

/**
 * The `--backend` choices of the `woolrx` CLI, by name; `local` is the
 * default. Each entry declares its own flags (accepted only with it) and
 * builds a {@link Discovery} for a namespace. Backends are imported lazily,
 * so `--help` and argument errors never load native code or sockets.
 *
 * Adding a backend is one file exporting a `CliBackend` (`{ summary, flags, create }`)
 * and one line here.
 */
export const backends: Readonly<Record<string, CliBackend>> = Object.freeze({
  local: localBackend,
  lan: lanBackend,
  etcd: etcdBackend,
} satisfies Record<string, CliBackend>);
