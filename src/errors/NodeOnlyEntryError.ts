import { WoolrxError } from './WoolrxError.js';

/**
 * A Node-only entry (`woolrx/local`, `woolrx/lan`, `woolrx/etcd`) was loaded
 * in a browser or an Electron renderer. Bundlers building for the browser
 * resolve these entries to a module that throws this error when it loads,
 * instead of failing on `fs`, `os` or `dgram`: in a renderer, the workers
 * come over `woolrx/bridge` — `exposeWorkers(discovery, port)` in the main
 * process, `discoveryFrom(port)` in the renderer. `entry` names the entry.
 * Code: `'WOOLRX_NODE_ONLY_ENTRY'`.
 *
 * @example
 * // renderer.ts, bundled for the browser:
 * import 'woolrx/local'; // throws NodeOnlyEntryError: woolrx/local runs in Node.js only …
 */
export class NodeOnlyEntryError extends WoolrxError {
  /** The entry that was loaded, e.g. `'woolrx/local'`. */
  readonly entry: string;

  /**
   * @param entry The Node-only entry that was loaded.
   */
  constructor(entry: string) {
    super(
      'WOOLRX_NODE_ONLY_ENTRY',
      `${entry} runs in Node.js only (a server, the Electron main process), ` +
        'not in a browser or an Electron renderer: in a renderer, use woolrx/bridge — ' +
        'exposeWorkers(discovery, port) where the backend runs, discoveryFrom(port) in the renderer',
    );
    this.entry = entry;
  }
}
