import type { Observable } from 'rxjs';

/**
 * The interop key behind {@link predicatedTake}: a source that has a method
 * under this key hands each item to at most one taker, and `predicatedTake`
 * delegates to it instead of filtering.
 *
 * It is a registered symbol (`Symbol.for`), not a class check, so two copies
 * of woolrx in one program (e.g. an app and a plugin bundling their own)
 * still recognise each other's queues. The `@1` suffix versions the protocol:
 * an incompatible change gets a new key rather than silently mixing.
 * @internal
 */
export const EXCLUSIVE_TAKE: unique symbol = Symbol.for('woolrx.exclusiveTake@1');

/**
 * A source that supports exclusive, predicated takes.
 * @internal
 */
export interface ExclusiveTakeSource<T> {
  /**
   * A cold Observable: each subscription registers a taker that receives up
   * to `count` items for which `predicate` returns true, none of which any
   * other taker receives, then completes. Arguments are already validated.
   */
  [EXCLUSIVE_TAKE](predicate: (item: T) => boolean, count: number): Observable<T>;
}
