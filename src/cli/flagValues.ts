import { readFileSync } from 'node:fs';
import { parseIntegerFlag } from './parseIntegerFlag.js';
import type { CliValues } from './types.js';
import { UsageError } from './UsageError.js';

/**
 * Readers of parsed flag values shared by the backend entries
 * (`localBackend`, `lanBackend`, `etcdBackend`). Each returns `undefined`
 * when the flag was not given and throws a {@link UsageError} (exit 2)
 * naming the flag when its value is bad.
 * @internal
 */
export const flagValues = Object.freeze({
  /** An integer flag of at least `min`. */
  integer(values: CliValues, flag: string, min: number): number | undefined {
    const text = values[flag];
    if (typeof text !== 'string') return undefined;
    const value = parseIntegerFlag(flag, text);
    if (value < min) throw new UsageError(`--${flag}: ${value} is below ${min}`);
    return value;
  },

  /** A string flag. */
  text(values: CliValues, flag: string): string | undefined {
    const value = values[flag];
    return typeof value === 'string' ? value : undefined;
  },

  /** A repeatable string flag, as a list (empty when not given). */
  list(values: CliValues, flag: string): string[] {
    const value = values[flag];
    if (typeof value === 'string') return [value];
    return Array.isArray(value) ? [...(value as readonly string[])] : [];
  },

  /** The contents of the file a flag names (a PEM certificate or key). */
  file(values: CliValues, flag: string): Buffer | undefined {
    const path = flagValues.text(values, flag);
    if (path === undefined) return undefined;
    try {
      return readFileSync(path);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      const reason =
        code === 'ENOENT'
          ? 'no such file'
          : code === 'EACCES'
            ? 'permission denied'
            : code === 'EISDIR'
              ? 'a directory, not a file'
              : (code ?? String(error));
      throw new UsageError(`--${flag} ${path}: ${reason} (give the path of a PEM file)`);
    }
  },
});
