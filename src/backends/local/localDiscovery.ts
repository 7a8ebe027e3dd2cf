import { existsSync, realpathSync } from 'node:fs';
import { tmpdir as osTmpdir } from 'node:os';
import { Subject } from 'rxjs';
import { createDiscovery } from '../../discovery/createDiscovery.js';
import type { Discovery, DiscoveryDiagnostic } from '../../discovery/types.js';
import { describeValue } from '../../model/describeValue.js';
import { SHM_DIR } from './layout.js';
import { LocalPublisher } from './LocalPublisher.js';
import { LocalSubscription } from './LocalSubscription.js';
import { localNames } from './localNames.js';
import type { LocalDiscoveryOptions, LocalSettings } from './types.js';
import { validateNamespace } from './validateNamespace.js';

function integer(name: string, value: unknown, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new TypeError(`Invalid localDiscovery option ${name}: ${describeValue(value)} (expected an integer from ${min} to ${max})`);
  }
  return value;
}

function settingsOf(options: LocalDiscoveryOptions): LocalSettings {
  if (options === null || typeof options !== 'object') {
    throw new TypeError(`Invalid localDiscovery options: ${describeValue(options)} (expected an object)`);
  }
  const pollInterval =
    options.pollInterval === false ? 0 : integer('pollInterval', options.pollInterval, 1000, 0, 2 ** 31 - 1);
  if (options.liveness !== undefined && typeof options.liveness !== 'boolean') {
    throw new TypeError(`Invalid localDiscovery option liveness: ${describeValue(options.liveness)} (expected a boolean)`);
  }
  return {
    capacity: integer('capacity', options.capacity, 128, 1, 1 << 24),
    blockSize: integer('blockSize', options.blockSize, 1024, 16, 1 << 24),
    lockTimeout: integer('lockTimeout', options.lockTimeout, 30_000, 0, 2 ** 31 - 1),
    lockStale: integer('lockStale', options.lockStale, 10_000, 2_000, 2 ** 31 - 1),
    pollInterval,
    liveness: options.liveness ?? true,
  };
}

/**
 * Same-host discovery over POSIX shared memory, wire-compatible with wool's
 * `LocalDiscovery`: a woolrx process and a wool process on one namespace see
 * each other's workers.
 *
 * - `events()` is cold: each subscription attaches (or waits for the
 *   namespace to appear), emits `worker-added` for every registered worker
 *   in one synchronous burst, then deltas on every notification, with a
 *   fallback poll. Workers whose pid is gone are dropped and reclaimed.
 *   Unsubscribing closes every watcher, timer and descriptor.
 * - `publisher()` registers workers; every change runs under the namespace
 *   lock; closing it withdraws everything it registered.
 *
 * Linux only (objects live in `/dev/shm`). See docs/backends/local.md for
 * the layout, the segment lifecycle and the failure behaviour.
 *
 * @example
 * import { localDiscovery } from 'woolrx/local';
 *
 * const discovery = localDiscovery('my-pool');
 * discovery.events().subscribe((event) => console.log(event.type, event.worker.address));
 *
 * await using publisher = discovery.publisher();
 * await publisher.publish('worker-added', worker);
 *
 * @param namespace The namespace: non-empty, without `/`, `..` or NUL.
 * @param options Capacity, block size, lock and poll settings.
 * @returns The discovery.
 * @throws {TypeError} Naming a bad namespace or option.
 * @throws {Error} When this system has no `/dev/shm`.
 */
export function localDiscovery(namespace: string, options: LocalDiscoveryOptions = {}): Discovery {
  validateNamespace(namespace);
  const settings = settingsOf(options);
  if (options.tmpdir !== undefined && (typeof options.tmpdir !== 'string' || options.tmpdir === '')) {
    throw new TypeError(`Invalid localDiscovery option tmpdir: ${describeValue(options.tmpdir)} (expected a directory path)`);
  }
  if (!existsSync(SHM_DIR)) {
    throw new Error(`localDiscovery needs POSIX shared memory at ${SHM_DIR} (Linux); this system has none`);
  }
  const names = localNames(namespace, realpathSync(options.tmpdir ?? osTmpdir()));
  const diagnostics = new Subject<DiscoveryDiagnostic>();

  return createDiscovery({
    namespace,
    watch: (sink) => {
      const subscription = new LocalSubscription(
        names,
        settings,
        diagnostics,
        (event) => sink.next(event),
        () => sink.closed,
      );
      try {
        // The initial state is read synchronously (nothing when the
        // namespace does not exist yet: no workers are registered).
        subscription.start();
        sink.synced();
      } catch (error) {
        subscription.stop();
        sink.error(error);
      }
      return () => subscription.stop();
    },
    publisher: () => new LocalPublisher(names, settings, diagnostics),
    diagnostics,
  });
}
