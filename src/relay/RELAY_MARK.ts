/**
 * The `extra` key that marks a worker as put in its backend by a relay; its
 * value is the relay's name ({@link RelayOptions.id}). A relay never copies
 * a worker carrying it (one hop, so relays in opposite directions never loop),
 * and manages in its target only the workers carrying its own name. wool
 * and other subscribers see it as one more `extra` entry.
 *
 * @example
 * const relayed = events.pipe(filter((event) => RELAY_MARK in event.worker.extra));
 */
export const RELAY_MARK = 'woolrx-relay';
