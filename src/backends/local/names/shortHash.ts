import { hash } from 'node:crypto';

/**
 * wool's `short_hash`: SHA-256 of the UTF-8 bytes, URL-safe base64 without
 * padding, first 30 characters. Names the shared-memory objects of a
 * namespace and of each worker block.
 *
 * @example
 * shortHash('my-pool'); // 'rv9Swdt7zbqemYsMmH4rFprMxrJMyg'
 *
 * @param value Any string.
 * @returns 30 characters from `A-Z a-z 0-9 - _`.
 */
export function shortHash(value: string): string {
  // The one-shot `hash` (Node.js 20.12+): no Hash object per call, a third
  // of createHash's time. A publish hashes its worker's block name, and a
  // subscriber each block it opens.
  return hash('sha256', value, 'base64url').slice(0, 30);
}
