import type { Observable } from 'rxjs';
import type { DiscoveryEvent } from '../../src/events/types.js';

/** What {@link collectEvents} returns: the events so far, and a way to wait for more. */
export interface EventCollector {
  /** Every event received so far, in order (a live array: do not mutate). */
  readonly events: readonly DiscoveryEvent[];
  /** The error the stream ended with, if it errored. */
  readonly error: unknown;
  /** Whether the stream completed. */
  readonly completed: boolean;
  /**
   * Resolves with the events received so far as soon as `predicate` holds
   * for them (checked now and after each event). Rejects with a readable
   * message listing what did arrive when `timeoutMs` passes first, or the
   * stream ends without it holding.
   * @param predicate Over all events received so far.
   * @param what Describes the awaited condition, for the failure message.
   * @param timeoutMs Defaults to the collector's timeout.
   */
  waitFor(
    predicate: (events: readonly DiscoveryEvent[]) => boolean,
    what: string,
    timeoutMs?: number,
  ): Promise<readonly DiscoveryEvent[]>;
  /** Stops collecting (unsubscribes). Idempotent. */
  unsubscribe(): void;
}

/** Options of {@link collectEvents}. */
export interface CollectEventsOptions {
  /** Default timeout of `waitFor`, ms. Default 5000. */
  readonly timeoutMs?: number;
  /** Renders one event in failure messages. Default: type, uid, version, tags. */
  readonly describe?: (event: DiscoveryEvent) => string;
}

function defaultDescribe(event: DiscoveryEvent): string {
  const { uid, version, tags, address } = event.worker;
  return `${event.type} ${uid} (version ${JSON.stringify(version)}, address ${address}, tags [${tags.join(', ')}])`;
}

function describeError(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : (JSON.stringify(error) ?? typeof error);
}

interface Waiter {
  readonly check: () => boolean;
  readonly fail: (reason: string) => void;
}

/**
 * Subscribes to a stream of worker events and records what arrives, so a
 * test can wait, with a timeout, for a condition over the events — the tool
 * for backends that deliver asynchronously.
 *
 * @example
 * const collector = collectEvents(discovery.events());
 * await publisher.publish('worker-added', worker);
 * await collector.waitFor((events) => events.some((e) => e.worker.uid === worker.uid), 'worker added');
 * collector.unsubscribe();
 *
 * @param events The stream to collect; subscribed at once.
 * @param options Default timeout and event rendering.
 * @returns The collector.
 */
export function collectEvents(events: Observable<DiscoveryEvent>, options: CollectEventsOptions = {}): EventCollector {
  const defaultTimeout = options.timeoutMs ?? 5000;
  const describe = options.describe ?? defaultDescribe;
  const received: DiscoveryEvent[] = [];
  const waiters = new Set<Waiter>();
  let error: unknown;
  let completed = false;

  const listing = (): string =>
    received.length === 0
      ? 'no events'
      : `${received.length} event(s):\n${received.map((event, i) => `  ${i + 1}. ${describe(event)}`).join('\n')}`;

  const poke = (): void => {
    for (const waiter of [...waiters]) {
      if (waiter.check()) continue;
      if (completed) waiter.fail('the stream completed');
      else if (error !== undefined) waiter.fail(`the stream errored: ${describeError(error)}`);
    }
  };

  const subscription = events.subscribe({
    next: (event) => {
      received.push(event);
      poke();
    },
    error: (err: unknown) => {
      error = err ?? new Error('undefined error');
      poke();
    },
    complete: () => {
      completed = true;
      poke();
    },
  });

  return {
    events: received,
    get error() {
      return error;
    },
    get completed() {
      return completed;
    },
    waitFor(predicate, what, timeoutMs = defaultTimeout) {
      return new Promise((resolve, reject) => {
        const timing: { timer?: ReturnType<typeof setTimeout> } = {};
        const stop = (): void => clearTimeout(timing.timer);
        const waiter: Waiter = {
          check: () => {
            let holds: boolean;
            try {
              holds = predicate(received);
            } catch (err: unknown) {
              waiters.delete(waiter);
              stop();
              reject(err instanceof Error ? err : new Error(String(err)));
              return true;
            }
            if (!holds) return false;
            waiters.delete(waiter);
            stop();
            resolve([...received]);
            return true;
          },
          fail: (reason) => {
            waiters.delete(waiter);
            stop();
            reject(new Error(`Gave up waiting for ${what}: ${reason}. Received ${listing()}`));
          },
        };
        waiters.add(waiter);
        if (waiter.check()) return;
        if (completed || error !== undefined) {
          poke();
          return;
        }
        timing.timer = setTimeout(() => waiter.fail(`timed out after ${timeoutMs} ms`), timeoutMs);
      });
    },
    unsubscribe() {
      subscription.unsubscribe();
    },
  };
}
