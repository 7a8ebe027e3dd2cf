import { Observable, type MonoTypeOperatorFunction } from 'rxjs';
import { discoveryEvent } from '../events/discoveryEvent.js';
import type { DiscoveryEvent } from '../events/types.js';
import { describeValue } from '../model/describeValue.js';
import type { WorkerInfo, WorkerPredicate } from '../model/types.js';

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
 * So a subscriber sees a consistent stream: every `worker-updated` and
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
  return (source) =>
    new Observable<DiscoveryEvent>((subscriber) => {
      /** uid → last metadata that passed the predicate. */
      const passing = new Map<string, WorkerInfo>();

      const next = (event: DiscoveryEvent): void => {
        if (subscriber.closed) return;
        const type = event?.type;
        const worker = event?.worker as WorkerInfo | null | undefined;
        if (worker === null || typeof worker !== 'object' || typeof worker.uid !== 'string') {
          subscriber.error(new TypeError(`filterWorkers: event has no worker uid: ${describeValue(event)}`));
          return;
        }
        switch (type) {
          case 'worker-added':
          case 'worker-updated': {
            let passes: boolean;
            try {
              passes = Boolean(predicate(worker));
            } catch (err: unknown) {
              subscriber.error(err);
              return;
            }
            const uid = worker.uid;
            const last = passing.get(uid);
            if (passes) {
              passing.set(uid, worker);
              const outType = last === undefined ? 'worker-added' : 'worker-updated';
              subscriber.next(type === outType ? event : discoveryEvent(outType, worker));
            } else if (last !== undefined) {
              passing.delete(uid);
              subscriber.next(discoveryEvent('worker-dropped', last));
            }
            return;
          }
          case 'worker-dropped': {
            const last = passing.get(worker.uid);
            if (last === undefined) return;
            passing.delete(worker.uid);
            subscriber.next(last === worker ? event : discoveryEvent('worker-dropped', last));
            return;
          }
          default:
            subscriber.error(new TypeError(`filterWorkers: unknown event type ${describeValue(type)}`));
        }
      };

      const subscription = source.subscribe({
        next,
        error: (err: unknown) => subscriber.error(err),
        complete: () => subscriber.complete(),
      });
      return () => {
        subscription.unsubscribe();
        passing.clear();
      };
    });
}
