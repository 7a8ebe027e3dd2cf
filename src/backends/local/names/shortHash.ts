import { createHash } from 'node:crypto';

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
  return createHash('sha256').update(value, 'utf8').digest('base64url').slice(0, 30);
}
