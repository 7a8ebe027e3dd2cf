import { defer, filter, map, type OperatorFunction } from 'rxjs';

/**
 * The shape of woolrx's stateful event operators: each subscription gets a
 * fresh state (`defer`), and a pure step turns each value into what to
 * emit, or `undefined` for nothing. `filter` runs the step and `map` hands
 * on its result, so a value that yields nothing costs one operator hop, not
 * two.
 * @internal
 * @param init Makes one subscription's state.
 * @param step What to emit for one value, given the state (which it may update).
 */
export function stepOperator<T, R, S>(
  init: () => S,
  step: (state: S, value: T) => R | undefined,
): OperatorFunction<T, R> {
  return (source) =>
    defer(() => {
      const state = init();
      let out: R | undefined;
      return source.pipe(
        filter((value) => (out = step(state, value)) !== undefined),
        map(() => out as R),
      );
    });
}
