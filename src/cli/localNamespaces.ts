import { readdirSync, realpathSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SHM_DIR } from '../backends/local/names/localNames.js';
import { shortHash } from '../backends/local/names/shortHash.js';

/**
 * The local namespaces present on this host, by name, sorted: a namespace's
 * segment is named by a hash (`/dev/shm/<shortHash(ns)>`), so the names come
 * from the notification folders wool and woolrx make beside it
 * (`<tmpdir>/wool-<ns>/`), kept when their segment exists. Cheap (two
 * directory listings) and read-only; what cannot be read is left out.
 *
 * @example
 * localNamespaces(); // ['jobs', 'pool']
 *
 * @param tmp The temp directory (default: the system's).
 * @returns The names, or `undefined` when `/dev/shm` or the temp directory cannot be read.
 */
export function localNamespaces(tmp: string = tmpdir()): string[] | undefined {
  try {
    const shm = new Set(readdirSync(SHM_DIR));
    const dir = realpathSync(tmp);
    return readdirSync(dir)
      .filter((entry) => entry.startsWith('wool-'))
      .map((entry) => entry.slice('wool-'.length))
      .filter(
        (name) =>
          name !== '' &&
          shm.has(shortHash(name)) &&
          statSync(join(dir, `wool-${name}`), { throwIfNoEntry: false })?.isDirectory() === true,
      )
      .sort();
  } catch {
    return undefined;
  }
}
