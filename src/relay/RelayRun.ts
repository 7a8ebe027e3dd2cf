import { Subscription, type Observable, type SchedulerLike, type Subscriber } from 'rxjs';
import { errorMessage } from '../discovery/errorMessage.js';
import { retryDelay } from '../discovery/retryDelay.js';
import type { Discovery, DiscoveryDiagnostic, WorkerPublisher } from '../discovery/types.js';
import type { DiscoveryEventType, DiscoveryItem } from '../events/types.js';
import { describeValue } from '../model/describeValue.js';
import { sameWorker } from '../model/sameWorker.js';
import type { WorkerInfo, WorkerPredicate } from '../model/types.js';
import { eventWorker } from '../operators/eventWorker.js';
import { RELAY_MARK } from './RELAY_MARK.js';
import { relayedForm, type RelayFormSettings } from './relayedForm.js';
import type { RelayStatus, RelayStatusUpdate } from './types.js';

/** Retry delays after a failed write, ms: doubling from the first, capped at the last. */
const RETRY_FIRST_MS = 100;
const RETRY_MAX_MS = 5000;

/**
 * Error codes that mean "the target refuses this worker", not "the target is
 * down": retrying would fail the same way until the worker changes.
 */
const REFUSALS: ReadonlySet<string> = new Set([
  'WOOLRX_LAN_TXT_TOO_LONG',
  'WOOLRX_LAN_NAME_CONFLICT',
  'WOOLRX_LAN_ADVERTISE_HOST',
  'WOOLRX_BLOCK_EXHAUSTED',
  'WOOLRX_WORKER_NOT_FOUND',
]);

function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null | undefined)?.code;
  return typeof code === 'string' ? code : undefined;
}

function isRefusal(error: unknown): boolean {
  if (error instanceof TypeError) return true;
  const code = codeOf(error);
  return code !== undefined && REFUSALS.has(code);
}

/** Everything one subscription of {@link relayWorkers} needs. @internal */
export interface RelayRunConfig {
  readonly source: Observable<DiscoveryItem>;
  readonly sourceDiagnostics: Observable<DiscoveryDiagnostic> | undefined;
  /** The source never says when its initial state is complete (no `synced` item): count it complete once subscribed. */
  readonly syncedOnSubscribe: boolean;
  readonly target: Discovery;
  readonly filter: WorkerPredicate | undefined;
  readonly form: RelayFormSettings;
  readonly scheduler: SchedulerLike;
}

/**
 * One running relay (one subscription of {@link relayWorkers}): a
 * reconciler between what the source holds and what the target holds.
 *
 * - `desired`: each relayable source worker in the form written to the
 *   target (address rewritten, relay mark set), by uid.
 * - `held`: every worker the target holds, from a watch of the target; the
 *   relay's own are those whose mark is its name.
 *
 * A source change is written at once, through the one publisher, so the
 * target gets each worker's changes in the source's order. A failed write
 * (other than a refusal of that one worker) takes the target "down": writes
 * stop, the source is still followed, and after a back-off every worker
 * whose held state differs from its desired one is written again (a
 * re-sync); the first re-sync whose writes all go through takes the target
 * "up". While up, a change of the target that leaves one of the relay's
 * workers differing from the source — deleted behind its back (an expired
 * lease of a previous run), left over from a previous run, changed by
 * someone else — is repaired the same way, once both initial states are
 * complete. A worker the target holds in another publisher's form is left
 * alone: two relays never fight over one uid.
 * @internal
 */
export class RelayRun {
  readonly #out: Subscriber<RelayStatus>;
  readonly #config: RelayRunConfig;
  readonly #publisher: WorkerPublisher;
  readonly #subscriptions = new Subscription();
  readonly #desired = new Map<string, WorkerInfo>();
  /** Source workers not relayed, with the reason reported. */
  readonly #skipped = new Map<string, string>();
  /** Desired forms the target refused (not retried until the worker changes); always the current desired form. */
  readonly #refused = new Map<string, WorkerInfo>();
  /** Every worker the target holds, by uid. */
  readonly #held = new Map<string, WorkerInfo>();
  /** Writes not yet settled, per uid. */
  readonly #inFlight = new Map<string, number>();
  #pending = 0;
  #state: 'up' | 'down' | 'retrying' = 'up';
  #attempt = 0;
  #retryTimer: Subscription | undefined;
  #retryWhenIdle = false;
  #sourceSynced = false;
  #watching = false;
  #targetSynced = false;
  #ended = false;
  #statusScheduled = false;
  #lastStatus: string | undefined;

  /**
   * @param out The relay's subscriber.
   * @param config The source, the target and the settings.
   */
  constructor(out: Subscriber<RelayStatus>, config: RelayRunConfig) {
    this.#out = out;
    this.#config = config;
    this.#publisher = config.target.publisher();
  }

  /** Starts watching the source (and, once its initial state is written, the target). */
  start(): void {
    const { target, source, sourceDiagnostics } = this.#config;
    this.#scheduleStatus();
    if (sourceDiagnostics !== undefined) {
      this.#subscriptions.add(sourceDiagnostics.subscribe((diagnostic) => this.#diagnostic('source', diagnostic)));
    }
    this.#subscriptions.add(target.diagnostics.subscribe((diagnostic) => this.#diagnostic('target', diagnostic)));
    this.#subscriptions.add(
      source.subscribe({
        next: (item) => {
          try {
            this.#onSource(item);
          } catch (error) {
            this.#end(error);
          }
        },
        error: (error: unknown) => this.#end(error),
        complete: () => this.#end(undefined, true),
      }),
    );
    if (this.#config.syncedOnSubscribe && !this.#sourceSynced && !this.#ended) this.#onSource({ type: 'synced' });
  }

  /**
   * Starts watching the target once the source's initial state is written
   * (its writes settled): the target's initial read then holds them, rather
   * than the relay receiving each of them back as an event while it writes
   * the next (on etcd, one watch event per initial worker, decoded).
   */
  #watchTarget(): void {
    if (this.#watching || this.#ended || !this.#sourceSynced || this.#pending > 0) return;
    this.#watching = true;
    this.#subscriptions.add(
      this.#config.target.watch().subscribe({
        next: (item) => this.#onTarget(item),
        error: (error: unknown) => this.#end(error),
      }),
    );
  }

  /** Stops at once (the subscriber unsubscribed): withdraws in the background. */
  stop(): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#release();
    this.#publisher.close().catch(() => undefined);
  }

  #release(): void {
    this.#retryTimer?.unsubscribe();
    this.#retryTimer = undefined;
    this.#subscriptions.unsubscribe();
  }

  /** The source completed or something failed: withdraw, then complete or error. */
  #end(error: unknown, completed = false): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#release();
    const finish = (): void => {
      if (completed) {
        // Always emitted, even when it repeats the last one: the item a caller waits for.
        this.#out.next({ type: 'relay-status', relayed: 0, skipped: 0, pending: 0, target: 'up', synced: true });
        this.#out.complete();
      } else {
        this.#out.error(error);
      }
    };
    this.#publisher.close().then(finish, finish);
  }

  #diagnostic(side: 'source' | 'target', diagnostic: DiscoveryDiagnostic): void {
    const code = codeOf(diagnostic.error);
    this.#out.next({
      type: 'relay-diagnostic',
      side,
      kind: diagnostic.kind,
      message: diagnostic.message,
      ...(diagnostic.uid === undefined ? {} : { uid: diagnostic.uid }),
      ...(code === undefined ? {} : { code }),
    });
  }

  // --- the source -----------------------------------------------------------

  #onSource(item: DiscoveryItem): void {
    if (item?.type === 'synced') {
      this.#sourceSynced = true;
      this.#watchTarget();
      this.#reconcileAll();
      this.#scheduleStatus();
      return;
    }
    const worker = eventWorker('relayWorkers', item);
    const uid = worker.uid;
    switch (item.type) {
      case 'worker-added':
      case 'worker-updated': {
        const filter = this.#config.filter;
        if (filter !== undefined && !filter(worker)) {
          this.#skipped.delete(uid);
          this.#undesire(uid);
          break;
        }
        const form = relayedForm(worker, this.#config.form);
        if (form.reason !== undefined) {
          if (!this.#skipped.has(uid)) this.#out.next({ type: 'relay-skipped', uid, reason: form.reason });
          this.#skipped.set(uid, form.reason);
          this.#undesire(uid);
          break;
        }
        this.#skipped.delete(uid);
        const last = this.#desired.get(uid);
        if (last !== undefined && sameWorker(last, form.worker)) break;
        this.#desired.set(uid, form.worker);
        this.#refused.delete(uid);
        if (this.#writable()) this.#write('worker-added', form.worker);
        break;
      }
      case 'worker-dropped':
        this.#skipped.delete(uid);
        this.#undesire(uid);
        break;
      default:
        throw new TypeError(`relayWorkers: unknown event type ${describeValue((item as { type?: unknown }).type)}`);
    }
    this.#scheduleStatus();
  }

  /** The source no longer has `uid` (or no longer relays it): withdraw it from the target. */
  #undesire(uid: string): void {
    const last = this.#desired.get(uid);
    if (last === undefined) return;
    this.#desired.delete(uid);
    this.#refused.delete(uid);
    if (this.#writable()) this.#write('worker-dropped', last);
  }

  // --- the target -----------------------------------------------------------

  #isMine(worker: WorkerInfo | undefined): worker is WorkerInfo {
    return worker !== undefined && worker.extra[RELAY_MARK] === this.#config.form.id;
  }

  #onTarget(item: DiscoveryItem): void {
    if (item.type === 'synced') {
      this.#targetSynced = true;
      this.#reconcileAll();
      this.#scheduleStatus();
      return;
    }
    const { uid } = item.worker;
    if (item.type === 'worker-dropped') this.#held.delete(uid);
    else this.#held.set(uid, item.worker);
    if (this.#writable() && !this.#inFlight.has(uid)) this.#reconcile(uid);
  }

  /** What the target should hold for `uid`: its desired form, unless the target refused that form. */
  #wanted(uid: string): WorkerInfo | undefined {
    const desired = this.#desired.get(uid);
    const refused = this.#refused.get(uid);
    return desired !== undefined && refused !== undefined && sameWorker(refused, desired) ? undefined : desired;
  }

  /**
   * Writes what makes the target's state of `uid` the desired one, if it
   * differs: the desired form when the target has no worker of that uid or
   * the relay's own in another form, a drop when the target holds one of
   * the relay's own the source no longer has (only once both initial states
   * are complete: until then the source may still report it).
   */
  #reconcile(uid: string): void {
    if (!this.#targetSynced) return;
    const wanted = this.#wanted(uid);
    const held = this.#held.get(uid);
    if (wanted !== undefined) {
      if (held === undefined || (this.#isMine(held) && !sameWorker(held, wanted))) this.#write('worker-added', wanted);
    } else if (this.#isMine(held) && this.#sourceSynced) {
      this.#write('worker-dropped', held);
    }
  }

  #reconcileAll(): void {
    if (this.#state !== 'up' && this.#state !== 'retrying') return;
    for (const uid of new Set([...this.#desired.keys(), ...this.#held.keys()])) {
      if (!this.#inFlight.has(uid)) this.#reconcile(uid);
    }
  }

  // --- writes, failures, retries --------------------------------------------

  #writable(): boolean {
    return this.#state !== 'down' && !this.#ended;
  }

  #write(type: DiscoveryEventType, worker: WorkerInfo): void {
    const { uid } = worker;
    this.#inFlight.set(uid, (this.#inFlight.get(uid) ?? 0) + 1);
    this.#pending++;
    this.#publisher.publish(type, worker).then(
      () => this.#settled(uid),
      (error: unknown) => {
        if (!this.#ended) this.#failed(type, worker, error);
        this.#settled(uid);
      },
    );
  }

  #settled(uid: string): void {
    const left = (this.#inFlight.get(uid) ?? 1) - 1;
    if (left === 0) this.#inFlight.delete(uid);
    else this.#inFlight.set(uid, left);
    this.#pending--;
    if (this.#ended || this.#pending > 0) {
      this.#scheduleStatus();
      return;
    }
    if (this.#retryWhenIdle) this.#retry();
    else if (this.#state === 'retrying') {
      this.#state = 'up';
      this.#attempt = 0;
    }
    this.#watchTarget();
    this.#scheduleStatus();
  }

  #failed(type: DiscoveryEventType, worker: WorkerInfo, error: unknown): void {
    const code = codeOf(error);
    if (type === 'worker-added' && isRefusal(error)) {
      const { uid } = worker;
      if (this.#desired.get(uid) === worker) {
        this.#refused.set(uid, worker);
        this.#out.next({
          type: 'relay-error',
          uid,
          message: `the target refused worker ${uid}: ${errorMessage(error)}`,
          ...(code === undefined ? {} : { code }),
        });
        // An older form it held before is not the source's worker any more.
        if (this.#writable()) this.#write('worker-dropped', worker);
      }
      return;
    }
    if (this.#state === 'down') return;
    const retrying = this.#state === 'retrying';
    this.#state = 'down';
    if (!retrying)
      this.#out.next({
        type: 'relay-error',
        message:
          `writing to the target failed (${errorMessage(error)}); ` +
          'following the source and re-syncing the target when it is back',
        ...(code === undefined ? {} : { code }),
      });
    const delay = retryDelay(this.#attempt, RETRY_FIRST_MS, RETRY_MAX_MS);
    this.#attempt++;
    this.#retryTimer?.unsubscribe();
    this.#retryTimer = this.#config.scheduler.schedule(() => {
      this.#retryTimer = undefined;
      if (this.#pending > 0) this.#retryWhenIdle = true;
      else this.#retry();
    }, delay);
    this.#scheduleStatus();
  }

  /** Re-syncs the target: writes every worker whose held state differs from the desired one. */
  #retry(): void {
    this.#retryWhenIdle = false;
    if (this.#ended) return;
    this.#state = 'retrying';
    if (this.#targetSynced) {
      this.#reconcileAll();
    } else {
      // Nothing read of the target yet: write every worker again (an
      // unchanged one is no event); drops wait for the target's state.
      for (const uid of this.#desired.keys()) {
        const wanted = this.#wanted(uid);
        if (wanted !== undefined && !this.#inFlight.has(uid)) this.#write('worker-added', wanted);
      }
    }
    if (this.#pending === 0 && this.#state === 'retrying') {
      this.#state = 'up';
      this.#attempt = 0;
    }
    this.#scheduleStatus();
  }

  // --- status ---------------------------------------------------------------

  #scheduleStatus(): void {
    if (this.#statusScheduled || this.#ended) return;
    this.#statusScheduled = true;
    this.#config.scheduler.schedule(() => {
      this.#statusScheduled = false;
      if (!this.#ended) this.#emitStatus(this.#status());
    });
  }

  #status(): RelayStatusUpdate {
    // A refused form is always the current desired one (a new form clears it).
    const relayed = this.#desired.size - this.#refused.size;
    const up = this.#state === 'up';
    return {
      type: 'relay-status',
      relayed,
      skipped: this.#skipped.size + (this.#desired.size - relayed),
      pending: this.#pending,
      target: up ? 'up' : 'down',
      synced: up && this.#sourceSynced && this.#targetSynced && this.#pending === 0,
    };
  }

  /** Emits a status item unless it says the same as the last one. */
  #emitStatus(status: RelayStatusUpdate): void {
    const key = JSON.stringify(status);
    if (key === this.#lastStatus) return;
    this.#lastStatus = key;
    this.#out.next(status);
  }
}
