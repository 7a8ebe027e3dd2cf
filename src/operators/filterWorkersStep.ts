import { discoveryEvent } from '../events/discoveryEvent.js';
import { eventWorker } from './eventWorker.js';
import type { DiscoveryEvent } from '../events/types.js';
import { describeValue } from '../model/describeValue.js';
import type { WorkerInfo, WorkerPredicate } from '../model/types.js';

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
      return last === worker ? event : discoveryEvent('worker-dropped', last);
    }
    default:
      throw new TypeError(`filterWorkers: unknown event type ${describeValue(type)}`);
  }
}
