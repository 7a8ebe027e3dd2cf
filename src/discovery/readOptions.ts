import { describeValue } from '../model/describeValue.js';

/**
 * Reads one backend factory's options with one message grammar for every
 * backend: `<factory>: option <name> must be <expected>, got <value>`.
 * Returned by {@link readOptions}.
 * @internal
 */
export interface OptionReader {
  /**
   * An integer option.
   * @param name The option's key.
   * @param fallback Its default.
   * @param min The least accepted value.
   * @param max The greatest accepted value (`Infinity` allowed).
   * @returns The value, or `fallback` when absent.
   */
  integer(name: string, fallback: number, min: number, max: number): number;
  /**
   * A finite (or, with `max = Infinity`, unbounded) number option.
   * @param name The option's key.
   * @param fallback Its default.
   * @param min The least accepted value.
   * @param max The greatest accepted value.
   * @param exclusiveMin `min` itself is not accepted.
   * @returns The value, or `fallback` when absent.
   */
  number(name: string, fallback: number, min: number, max: number, exclusiveMin?: boolean): number;
  /**
   * A boolean option.
   * @param name The option's key.
   * @param fallback Its default.
   * @returns The value, or `fallback` when absent.
   */
  boolean(name: string, fallback: boolean): boolean;
  /**
   * One of a set of string values.
   * @param name The option's key.
   * @param values The accepted values.
   * @param fallback Its default.
   * @returns The value, or `fallback` when absent.
   */
  oneOf<T extends string>(name: string, values: readonly T[], fallback: T): T;
  /**
   * An option checked by the caller's own test.
   * @param name The option's key.
   * @param expected What is accepted, for the message (e.g. `'a directory path'`).
   * @param accept The test; the value is present (not `undefined`).
   * @returns The value, or `undefined` when absent.
   */
  check<T>(name: string, expected: string, accept: (value: unknown) => value is T): T | undefined;
  /**
   * Throws the grammar's `TypeError` for an option the caller rejected itself.
   * @param name The option's key.
   * @param expected What is accepted.
   * @param value The rejected value.
   */
  fail(name: string, expected: string, value: unknown): never;
}

function range(min: number, max: number): string {
  if (max === Infinity) return `at least ${min}`;
  return `from ${min} to ${max}`;
}

/**
 * Starts reading a backend factory's options: checks that `options` is an
 * object with no key outside `known` (a misspelt or unsupported option is a
 * `TypeError` naming it, never silently ignored), then reads each option
 * with one message grammar.
 * @internal
 * @example
 * const read = readOptions('localDiscovery', options, ['capacity', 'blockSize']);
 * const capacity = read.integer('capacity', 128, 1, 1 << 24);
 * @param factory The factory's name, e.g. `'localDiscovery'`.
 * @param options What the caller passed.
 * @param known Every key the factory accepts.
 * @throws {TypeError} When `options` is not an object, or has an unknown key.
 */
export function readOptions(factory: string, options: unknown, known: readonly string[]): OptionReader {
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw new TypeError(`${factory}: options must be an object, got ${describeValue(options)}`);
  }
  const record = options as Record<string, unknown>;
  const unknown = Object.keys(record).filter((key) => !known.includes(key));
  if (unknown.length > 0) {
    throw new TypeError(
      `${factory}: unknown option${unknown.length > 1 ? 's' : ''} ` +
        `${unknown.map((key) => describeValue(key)).join(', ')} (known: ${known.join(', ')})`,
    );
  }
  const fail = (name: string, expected: string, value: unknown): never => {
    throw new TypeError(`${factory}: option ${name} must be ${expected}, got ${describeValue(value)}`);
  };
  return {
    fail,
    integer(name, fallback, min, max) {
      const value = record[name];
      if (value === undefined) return fallback;
      const ok =
        typeof value === 'number' && (Number.isInteger(value) || value === Infinity) && value >= min && value <= max;
      return ok ? value : fail(name, `an integer ${range(min, max)}`, value);
    },
    number(name, fallback, min, max, exclusiveMin = false) {
      const value = record[name];
      if (value === undefined) return fallback;
      const ok =
        typeof value === 'number' &&
        !Number.isNaN(value) &&
        (exclusiveMin ? value > min : value >= min) &&
        value <= max;
      if (ok) return value;
      const lower = exclusiveMin ? `above ${min}` : `at least ${min}`;
      return fail(name, max === Infinity ? `a number ${lower}` : `a number ${lower} and at most ${max}`, value);
    },
    boolean(name, fallback) {
      const value = record[name];
      if (value === undefined) return fallback;
      return typeof value === 'boolean' ? value : fail(name, 'a boolean', value);
    },
    oneOf(name, values, fallback) {
      const value = record[name];
      if (value === undefined) return fallback;
      return (values as readonly unknown[]).includes(value)
        ? (value as (typeof values)[number])
        : fail(name, `one of ${values.map((v) => `'${v}'`).join(', ')}`, value);
    },
    check(name, expected, accept) {
      const value = record[name];
      if (value === undefined) return undefined;
      return accept(value) ? value : fail(name, expected, value);
    },
  };
}

/** Longest file name on Linux file systems (`NAME_MAX`), in bytes. */
const NAME_MAX = 255;
/**
 * Longest namespace, in UTF-8 bytes: wool's local backend names a directory `wool-<namespace>`, which must fit
 * `NAME_MAX`.
 */
const MAX_NAMESPACE_BYTES = NAME_MAX - 'wool-'.length;

/**
 * Checks a backend factory's namespace, the same way for every backend: a
 * non-empty string without `/`, `..` or NUL, of at most 250 UTF-8 bytes
 * (wool's local backend puts the raw namespace in a directory name,
 * `wool-<namespace>`, which must fit `NAME_MAX`; a namespace is the same on
 * every backend, so every backend accepts the same ones).
 * @internal
 * @param factory The factory's name, e.g. `'etcdDiscovery'`.
 * @param namespace What the caller passed; `undefined` means `'default'`.
 * @returns The namespace.
 * @throws {TypeError} Naming the bad value.
 */
export function readNamespace(factory: string, namespace: unknown = 'default'): string {
  if (typeof namespace !== 'string' || namespace.length === 0) {
    throw new TypeError(`${factory}: namespace must be a non-empty string, got ${describeValue(namespace)}`);
  }
  if (namespace.includes('/') || namespace.includes('..') || namespace.includes('\0')) {
    throw new TypeError(
      `${factory}: namespace must be a non-empty string without "/", ".." or NUL, got ${describeValue(namespace)}`,
    );
  }
  const bytes = new TextEncoder().encode(namespace).length;
  if (bytes > MAX_NAMESPACE_BYTES) {
    const shown = describeValue(namespace.length > 40 ? `${namespace.slice(0, 40)}…` : namespace);
    throw new TypeError(
      `${factory}: namespace ${shown} is ${bytes} bytes long (at most ${MAX_NAMESPACE_BYTES} UTF-8 bytes: ` +
        `wool's local backend names a directory wool-<namespace>, which must fit NAME_MAX, ${NAME_MAX} bytes)`,
    );
  }
  return namespace;
}
