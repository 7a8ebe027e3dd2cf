// What a bundler building for the browser loads for woolrx/etcd (package.json's
// "browser" condition): the backend needs Node.js, so a renderer that imports
// it by mistake gets an error naming woolrx/bridge, not "Could not resolve
// fs". The names of woolrx/etcd are exported so that the renderer's imports
// resolve (test/rendererMistake.test.ts checks they are all there).
import { nodeOnlyEntry } from './nodeOnlyEntry.js';

const unavailable: never = nodeOnlyEntry('woolrx/etcd');

export { unavailable as EtcdUnavailableError, unavailable as etcdDiscovery };
