import { existsSync, realpathSync } from 'node:fs';
import { tmpdir as osTmpdir } from 'node:os';
import { Subject } from 'rxjs';
import { createDiscovery } from '../../discovery/createDiscovery.js';
import type { Discovery, DiscoveryDiagnostic } from '../../discovery/types.js';
import { readNamespace, readOptions } from '../../discovery/readOptions.js';
import { SHM_DIR, localNames } from './names/localNames.js';
import { LocalPublisher } from './LocalPublisher.js';
import { LocalWatch } from './LocalWatch.js';
import { NamespaceWriter } from './NamespaceWriter.js';
import { SharedMemoryUnavailableError } from './segment/segmentErrors.js';
import { tmpdirError } from './TmpdirUnusableError.js';
import type { LocalDiscoveryOptions, LocalSettings } from './types.js';

const MAX_MS = 2 ** 31 - 1;

/** Longest wait for the lock of a subscriber's background work, in ms. */
const BACKGROUND_LOCK_TIMEOUT = 30_000;

/** Every option key {@link localDiscovery} accepts. */
const KNOWN: readonly (keyof LocalDiscoveryOptions)[] = [
  'capacity',
  'blockSize',
  'lockTimeout',
  'pollInterval',
  'liveness',
  'tmpdir',
];

function isPollInterval(value: unknown): value is number | false {
  return value === false || (typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= MAX_MS);
}

function isLockTimeout(value: unknown): value is number {
  return value === Infinity || (typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= MAX_MS);
}

function isPath(value: unknown): value is string {
  return typeof value === 'string' && value !== '';
}

function settingsOf(options: LocalDiscoveryOptions): LocalSettings & { readonly tmpdir: string | undefined } {
  const read = readOptions('localDiscovery', options, KNOWN);
  const pollInterval = read.check('pollInterval', `false or an integer from 0 to ${MAX_MS}`, isPollInterval) ?? 1000;
  return {
    capacity: read.integer('capacity', 128, 1, 1 << 24),
    blockSize: read.integer('blockSize', 1024, 16, 1 << 24),
    lockTimeout:
      read.check('lockTimeout', `an integer from 0 to ${MAX_MS}, or Infinity (wait without bound)`, isLockTimeout) ??
      30_000,
    pollInterval: pollInterval === false ? 0 : pollInterval,
    liveness: read.boolean('liveness', true),
    tmpdir: read.check('tmpdir', 'a directory path', isPath),
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
 * @param namespace The namespace: a non-empty string without `/`, `..` or
 * NUL, at most 250 UTF-8 bytes (the same on every backend). Default `'default'`.
 * @param options Capacity, block size, lock and poll settings.
 * @returns The discovery.
 * @throws {TypeError} Naming a bad namespace, a bad option value, or an
 * unknown option key.
 * @throws {SharedMemoryUnavailableError} When this system has no `/dev/shm`.
 * @throws {TmpdirUnusableError} When the temp directory (`tmpdir`) does not
 * exist; a subscription errors with it, and a publish rejects with it, when
 * the directory is not one this user can write. A subscription or publish
 * that fails at any step leaves nothing behind (see "Failures at start-up"
 * in docs/backends/local.md).
 */
export function localDiscovery(namespace?: string, options: LocalDiscoveryOptions = {}): Discovery {
  namespace = readNamespace('localDiscovery', namespace);
  const { tmpdir, ...settings } = settingsOf(options);
  if (!existsSync(SHM_DIR)) {
    throw new SharedMemoryUnavailableError(SHM_DIR);
  }
  const tmp = tmpdir ?? osTmpdir();
  let realTmp: string;
  try {
    realTmp = realpathSync(tmp);
  } catch (error) {
    throw tmpdirError(tmp, error) ?? error;
  }
  const names = localNames(namespace, realTmp);
  const diagnostics = new Subject<DiscoveryDiagnostic>();
  // A subscriber's own background work (reclaims, the last one out's
  // cleanup) never waits for the lock without bound.
  const background = { ...settings, lockTimeout: Math.min(settings.lockTimeout, BACKGROUND_LOCK_TIMEOUT) };
  const withdraw = NamespaceWriter.withdrawal(names, background, diagnostics);

  return createDiscovery({
    namespace,
    watch: (sink) => {
      const watch = new LocalWatch(names, background, diagnostics, sink, withdraw);
      try {
        // The initial state is read synchronously (nothing when the
        // namespace does not exist yet: no workers are registered), so it
        // is complete as soon as start() returns.
        watch.start();
        if (!sink.closed) sink.synced();
      } catch (error) {
        // Stopping removes what the start made (the last one out's cleanup).
        watch.stop();
        sink.error(tmpdirError(realTmp, error) ?? error);
      }
      return () => watch.stop();
    },
    publisher: () => new LocalPublisher(names, settings, diagnostics),
    diagnostics,
  });
}
