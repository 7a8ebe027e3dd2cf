// What a bundler building for the browser loads for woolrx/local (package.json's
// "browser" condition): the backend needs Node.js, so a renderer that imports
// it by mistake gets an error naming woolrx/bridge, not "Could not resolve
// fs". The names of woolrx/local are exported so that the renderer's imports
// resolve (test/rendererMistake.test.ts checks they are all there).
import { nodeOnlyEntry } from './nodeOnlyEntry.js';

const unavailable: never = nodeOnlyEntry('woolrx/local');

export {
  unavailable as BlockExhaustedError,
  unavailable as CapacityExhaustedError,
  unavailable as FlockUnavailableError,
  unavailable as LockTimeoutError,
  unavailable as SegmentNotReadyError,
  unavailable as SegmentTooLargeError,
  unavailable as SharedMemoryUnavailableError,
  unavailable as TmpdirUnusableError,
  unavailable as UnsafeObjectError,
  unavailable as localDiscovery,
  unavailable as shortHash,
};
