import type { MonoTypeOperatorFunction } from 'rxjs';
import { discoveryEvent } from '../events/discoveryEvent.js';
import type { DiscoveryEvent } from '../events/types.js';
import { describeValue } from '../model/describeValue.js';
import type { WorkerInfo, WorkerPredicate } from '../model/types.js';
import { eventWorker } from './eventWorker.js';
import { stepOperator } from './stepOperator.js';

/**
 * The step function of {@link filterWorkers}: what one source event means for
 * a subscriber that sees only the workers passing `predicate`.
 *
 * `passing` (uid → last metadata that passed) is updated in place.
 * @internal
 * @param passing The workers currently passing, by uid.
 * @param predicate The filter.
 * @param event The source event.
 * @returns The event to emit, or `undefined` for none.
 * @throws {TypeError} Naming a malformed event; whatever `predicate` throws.
 */
export function filterWorkersStep(
  passing: Map<string, WorkerInfo>,
  predicate: WorkerPredicate,
  event: DiscoveryEvent,
): DiscoveryEvent | undefined {
  const type = event?.type;
  const worker = eventWorker('filterWorkers', event);
  const uid = worker.uid;
  switch (type) {
    case 'worker-added':
    case 'worker-updated': {
      const passes = Boolean(predicate(worker));
      const last = passing.get(uid);
      if (passes) {
        passing.set(uid, worker);
        const outType = last === undefined ? 'worker-added' : 'worker-updated';
        return type === outType ? event : discoveryEvent(outType, worker);
      }
      if (last === undefined) return undefined;
      passing.delete(uid);
      return discoveryEvent('worker-dropped', last);
    }
    case 'worker-dropped': {
      const last = passing.get(uid);
      if (last === undefined) return undefined;
      passing.delete(uid);
      return last === worker ? event : discoveryEvent('worker-dropped', last, event.reason);
    }
    default:
      throw new TypeError(`filterWorkers: unknown event type ${describeValue(type)}`);
  }
}

/**
 * Keeps only the workers that satisfy a predicate, turning workers that start
 * or stop passing into `worker-added` and `worker-dropped` events.
 *
 * <span class="informal">Like RxJS `filter`, but for a set of workers that
 * change over time: a worker whose update makes it pass appears, one whose
 * update makes it fail disappears.</span>
 *
 * ```
 * predicate: worker has tag "gpu"
 *
 * source:  --a----b----c----d----e--|
 *              a = added 1 (gpu),   b = added 2 (cpu)
 *              c = updated 2 (gpu), d = updated 1 (cpu), e = dropped 2
 * result:  --a---------C----D----e--|
 *              C = added 2 (gpu)
 *              D = dropped 1, carrying 1's last gpu metadata
 * ```
 *
 * Each subscription keeps its own map of the workers currently passing, by
 * uid, with the last metadata that passed. For each source event:
 *
 * - `worker-added` or `worker-updated` of a worker that passes: emits
 *   `worker-updated` if the uid was already passing, `worker-added` if not.
 * - `worker-added` or `worker-updated` of a worker that fails: if the uid was
 *   passing, emits `worker-dropped` carrying its last *passing* metadata (the
 *   metadata subscribers last saw); otherwise emits nothing.
 * - `worker-dropped`: if the uid was passing, emits `worker-dropped` with its
 *   last passing metadata; otherwise (a worker that never passed) emits
 *   nothing. The predicate is not called.
 *
 * Each subscription keeps its own record of the passing workers, so a
 * subscriber sees a consistent stream: every `worker-updated` and
 * `worker-dropped` it gets refers to a worker it saw added. Errors and
 * completion are forwarded. If the predicate throws, the result errors with
 * that error and the source is unsubscribed.
 *
 * @example
 * Watch only workers that carry the `gpu` tag.
 * ```ts
 * import { filterWorkers, memoryDiscovery } from 'woolrx';
 *
 * memoryDiscovery('demo')
 *   .events()
 *   .pipe(filterWorkers((worker) => worker.tags.includes('gpu')))
 *   .subscribe((event) => console.log(event.type, event.worker.address));
 * ```
 *
 * @param predicate A function called with each added or updated worker; the
 * worker passes while it returns a truthy value.
 * @returns A function that returns an Observable of the events of the workers
 * that pass `predicate`, with transitions turned into `worker-added` and
 * `worker-dropped`.
 * @throws {TypeError} When `predicate` is not a function (at call time).
 */
export function filterWorkers(predicate: WorkerPredicate): MonoTypeOperatorFunction<DiscoveryEvent> {
  if (typeof predicate !== 'function') {
    throw new TypeError(`filterWorkers: predicate must be a function, got ${describeValue(predicate)}`);
  }
  // uid → last metadata that passed the predicate, per subscription.
  return stepOperator(
    () => new Map<string, WorkerInfo>(),
    (passing, event: DiscoveryEvent) => filterWorkersStep(passing, predicate, event),
  );
}
