// The event type: `type` narrows, and only the three event types exist.
import type { DiscoveryEvent, DiscoveryEventType, DropReason, WorkerInfo } from '../src/index.js';
import { discoveryEvent } from '../src/index.js';
import { expectTrue, type Equal } from './expect.js';

declare const event: DiscoveryEvent;
declare const worker: WorkerInfo;

expectTrue<Equal<DiscoveryEventType, 'worker-added' | 'worker-updated' | 'worker-dropped'>>();

switch (event.type) {
  case 'worker-added':
    expectTrue<Equal<typeof event.type, 'worker-added'>>();
    break;
  case 'worker-updated':
    expectTrue<Equal<typeof event.type, 'worker-updated'>>();
    // @ts-expect-error a worker-updated event is not a worker-dropped one here
    expectTrue<Equal<typeof event.type, 'worker-dropped'>>();
    break;
  case 'worker-dropped':
    expectTrue<Equal<typeof event.type, 'worker-dropped'>>();
    break;
  default:
    // Exhaustive: nothing is left.
    expectTrue<Equal<typeof event.type, never>>();
}

if (event.type !== 'worker-dropped') {
  expectTrue<Equal<typeof event.type, 'worker-added' | 'worker-updated'>>();
}

// @ts-expect-error there is no such event type
if (event.type === 'worker-moved') expectTrue<true>();

expectTrue<Equal<ReturnType<typeof discoveryEvent>, DiscoveryEvent>>();
discoveryEvent('worker-added', worker);
// @ts-expect-error wool's spelling is not a woolrx event type
discoveryEvent('worker_added', worker);

// Events are read-only.
// @ts-expect-error readonly
event.type = 'worker-added';

// A drop's reason: one of four words, optional, read-only.
expectTrue<Equal<DropReason, 'withdrawn' | 'process-gone' | 'expired' | 'malformed'>>();
expectTrue<Equal<typeof event.reason, DropReason | undefined>>();
discoveryEvent('worker-dropped', worker, 'expired');
// @ts-expect-error not a drop reason
discoveryEvent('worker-dropped', worker, 'vanished');
// @ts-expect-error readonly
event.reason = 'expired';
