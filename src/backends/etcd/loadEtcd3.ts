import type * as Etcd3Module from 'etcd3';
import { requireOptional } from '../requireOptional.js';

/**
 * The `etcd3` package (an optional peer dependency: it brings grpc), loaded
 * on first use so that `woolrx/etcd` loads without it. The backend imports
 * only etcd3's types; every value (classes, enums, functions) is read from
 * this function's result where it is used.
 * @returns The etcd3 module.
 * @throws {MissingDependencyError} When etcd3 is not installed: `npm install etcd3`.
 * @internal
 */
export function loadEtcd3(): typeof Etcd3Module {
  return requireOptional<typeof Etcd3Module>('etcd3', 'woolrx/etcd');
}
