import { shortHash } from './shortHash.js';

/**
 * Name of a worker's block: `short_hash` of its UUID as 32 lowercase hex
 * digits, without hyphens.
 *
 * @example
 * blockName('6f1d2b1c-4c0b-4e7e-9a56-0c2b9d1d7e11'); // 'fX2taOjhEws3Xt_BVzfnipvB5cO1aB'
 *
 * @param uid A hyphenated UUID, or its 32 hex digits.
 * @returns The object name, without the leading `/`.
 * @internal
 */
export function blockName(uid: string): string {
  return shortHash(uid.replaceAll('-', '').toLowerCase());
}
