import { NodeOnlyEntryError } from '../../errors/NodeOnlyEntryError.js';

/**
 * Throws the {@link NodeOnlyEntryError} of a Node-only entry: what the
 * browser stand-ins of `woolrx/local`, `woolrx/lan` and `woolrx/etcd` do as
 * they load. Typed `never`, so a stand-in can export its entry's names
 * (bound to the call's "result") and a bundler resolves a renderer's imports
 * to it, and the renderer meets this error, not a missing export.
 *
 * @example
 * const unavailable: never = nodeOnlyEntry('woolrx/local');
 * export { unavailable as localDiscovery };
 *
 * @param entry The entry, e.g. `'woolrx/local'`.
 * @returns Never.
 * @throws {NodeOnlyEntryError} Always.
 */
export function nodeOnlyEntry(entry: string): never {
  throw new NodeOnlyEntryError(entry);
}
