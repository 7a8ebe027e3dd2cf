// The whole-run leak check of `npm test` (scripts/test.mjs): what the local
// backend and the tests can leave in /dev/shm and the temp directory, listed
// before and after the run; anything new fails the run, named.
import { readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Whether a name in /dev/shm is woolrx-shaped: woolrx's lock folders
 * (`woolrx-lock-<hash>/`) and anything else named `woolrx-*` or `wool-*`,
 * and the local backend's segments and worker blocks, named by wool's
 * `short_hash` (src/backends/local/names/shortHash.ts): exactly 30 characters of
 * URL-safe base64.
 * @param {string} name An entry of /dev/shm.
 * @returns {boolean}
 */
export function isWoolrxShm(name) {
  return name.startsWith('woolrx-') || name.startsWith('wool-') || /^[A-Za-z0-9_-]{30}$/.test(name);
}

/**
 * Whether a name in the temp directory is woolrx-shaped: wool's lock files
 * (`wool-lock-<hash>`) and notification folders (`wool-<namespace>/`), and
 * the tests' own folders (`woolrx-*`).
 * @param {string} name An entry of the temp directory.
 * @returns {boolean}
 */
export function isWoolrxTmp(name) {
  return name.startsWith('wool-') || name.startsWith('woolrx-');
}

function entries(dir) {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/**
 * Every woolrx-shaped entry of /dev/shm and the temp directory, as paths.
 * @param {{ shmDir?: string, tmpDir?: string }} [dirs] Where to look (default `/dev/shm` and `os.tmpdir()`).
 * @returns {Set<string>}
 */
export function woolrxEntries({ shmDir = '/dev/shm', tmpDir = tmpdir() } = {}) {
  const found = new Set();
  for (const name of entries(shmDir)) if (isWoolrxShm(name)) found.add(join(shmDir, name));
  for (const name of entries(tmpDir)) if (isWoolrxTmp(name)) found.add(join(tmpDir, name));
  return found;
}

/**
 * What is in `after` and was not in `before`, sorted.
 * @param {Set<string>} before
 * @param {Set<string>} after
 * @returns {string[]}
 */
export function newEntries(before, after) {
  return [...after].filter((path) => !before.has(path)).sort();
}

/**
 * The message that fails the run: one line per entry left behind.
 * @param {string[]} left What {@link newEntries} found.
 * @returns {string}
 */
export function leakReport(left) {
  return (
    `leak check: the run left ${left.length} new woolrx-shaped entr${left.length === 1 ? 'y' : 'ies'} in /dev/shm or the temp directory ` +
    `(a test did not clean up, or the code under test leaked):\n${left.map((path) => `  ${path}\n`).join('')}`
  );
}
