import { workerInfo } from '../model/workerInfo.js';
import type { WorkerInfo } from '../model/types.js';
import { parseIntegerFlag } from './parseIntegerFlag.js';
import type { CliValues } from './types.js';
import { UsageError } from './UsageError.js';

/** Values `woolrx publish` uses for flags that were not given. */
export interface WorkerFlagDefaults {
  readonly uid: () => string;
  readonly pid: number;
  readonly version: string;
}

function list(value: CliValues[string]): readonly string[] {
  if (value === undefined) return [];
  if (typeof value === 'string') return [value];
  if (typeof value === 'boolean') return [];
  return value;
}

/**
 * Builds the worker `woolrx publish` registers from its flags
 * (`--address`, `--uid`, `--pid`, `--version`, `--tag`, `--extra K=V`,
 * `--secure`), validated by {@link workerInfo}.
 *
 * @example
 * workerFromFlags({ address: '127.0.0.1:9000', tag: ['gpu'], extra: ['zone=eu-1'] },
 *   { uid: () => crypto.randomUUID(), pid: process.pid, version: '0.1.0' });
 *
 * @param values The parsed flags.
 * @param defaults What to use for `--uid`, `--pid`, `--version` when absent.
 * @throws {UsageError} For a missing `--address`, a non-integer `--pid`, an
 * `--extra` without `=` or with an empty or repeated key.
 * @throws {TypeError} From {@link workerInfo}: bad uid, address, pid range.
 */
export function workerFromFlags(values: CliValues, defaults: WorkerFlagDefaults): WorkerInfo {
  const address = values['address'];
  if (typeof address !== 'string') throw new UsageError('missing --address');
  const extra = new Map<string, string>();
  for (const pair of list(values['extra'])) {
    const eq = pair.indexOf('=');
    if (eq < 0) throw new UsageError(`--extra ${JSON.stringify(pair)}: expected KEY=VALUE`);
    const key = pair.slice(0, eq);
    if (key.length === 0) throw new UsageError(`--extra ${JSON.stringify(pair)}: empty key`);
    if (extra.has(key)) throw new UsageError(`--extra ${JSON.stringify(key)} given twice`);
    extra.set(key, pair.slice(eq + 1));
  }
  const uid = values['uid'];
  const pid = values['pid'];
  const version = values['version'];
  return workerInfo({
    uid: typeof uid === 'string' ? uid : defaults.uid(),
    address,
    pid: typeof pid === 'string' ? parseIntegerFlag('pid', pid) : defaults.pid,
    version: typeof version === 'string' ? version : defaults.version,
    tags: list(values['tag']),
    extra,
    secure: values['secure'] === true,
  });
}
