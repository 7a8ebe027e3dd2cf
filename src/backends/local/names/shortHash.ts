import * as crypto from 'node:crypto';

/**
 * The one-shot `crypto.hash` (Node.js 20.12+), which makes no Hash object
 * per call: a publish hashes its worker's block name, and a subscriber each
 * block it opens. Older runtimes that still load woolrx/local (the Node.js
 * inside Electron 28–30) use `createHash`. A namespace import, so that its
 * absence is `undefined`, not an ES module link error.
 */
const oneShot = typeof crypto.hash === 'function' ? crypto.hash : undefined;

/**
 * wool's `short_hash`: SHA-256 of the UTF-8 bytes, URL-safe base64 without
 * padding, first 30 characters. Names the shared-memory objects of a
 * namespace and of each worker block.
 *
 * @example
 * shortHash('my-pool'); // 'rv9Swdt7zbqemYsMmH4rFprMxrJMyg'
 *
 * @param value Any string, or its UTF-8 bytes.
 * @returns 30 characters from `A-Z a-z 0-9 - _`.
 */
export function shortHash(value: string | Uint8Array): string {
  const digest =
    oneShot === undefined
      ? crypto.createHash('sha256').update(value).digest('base64url')
      : oneShot('sha256', value, 'base64url');
  return digest.slice(0, 30);
}
