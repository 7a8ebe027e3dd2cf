// Type-level assertions for the type tests in this folder. These files are
// checked by `tsc` (`npm run typecheck`), never run: a wrong type is a
// compile error, and every `@ts-expect-error` must meet one.

/** `true` when A and B are the same type (not merely assignable). */
export type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

/** Compiles only when given `true`: `expectTrue<Equal<X, Y>>()`. */
export function expectTrue<T extends true>(): T | undefined {
  return undefined;
}

/**
 * Compiles only when the value's type is exactly `Expected`:
 * `expectType<Observable<string>>()(value)`. (A mismatch asks for a second
 * argument of type `never`.)
 */
export function expectType<Expected>() {
  return <Actual>(value: Actual, ..._exact: Equal<Actual, Expected> extends true ? [] : [never]): Actual => value;
}
