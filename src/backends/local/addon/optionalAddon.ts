import { FlockUnavailableError } from './FlockUnavailableError.js';
import { loadAddon, type NativeAddon } from './loadAddon.js';

/**
 * woolrx's addon where it loads, or `undefined` where none does (a platform
 * without a prebuilt binary): for what Node.js can do too, only dearer.
 * @returns The addon, or `undefined`.
 * @internal
 */
export function optionalAddon(): NativeAddon | undefined {
  try {
    return loadAddon();
  } catch (error) {
    if (error instanceof FlockUnavailableError) return undefined;
    throw error;
  }
}
