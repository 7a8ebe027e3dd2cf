import { Observable, type Subscriber } from 'rxjs';
import { QueueClosedError } from '../errors/QueueClosedError.js';
import { describeValue } from '../model/describeValue.js';
import { checkTakeArguments } from './checkTakeArguments.js';
import { isAbortSignal } from './isAbortSignal.js';

/** Options of a {@link PredicatedQueue}. */
export interface PredicatedQueueOptions {
  /**
   * Most items the queue buffers at once: a positive integer, or `Infinity`
   * (the default) for an unbounded queue. Items handed straight to a waiting
   * taker never count against it.
   */
  readonly maxSize?: number;
}

/** A queued item: buffered (counts against the bound) or a waiting put. */
interface Entry<T> {
  /** Arrival order, starting at 1; entries are kept sorted by it. */
  readonly seq: number;
  readonly item: T;
  /** `waiting`: a put waiting for space; `buffered`; then `taken` or `dropped`. */
  state: 'waiting' | 'buffered' | 'taken' | 'dropped';
  /** True once the item was buffered or taken (what `tryPut` reports). */
  accepted: boolean;
  /** Settles the `put` that is waiting for this entry, if any. */
  putter: Putter | undefined;
}

interface Putter {
  resolve(): void;
  reject(reason: Error): void;
}

/** One subscription to a take: who wants what, and how many more. */
interface Taker<T> {
  readonly predicate: (item: T) => boolean;
  readonly subscriber: Subscriber<T>;
  remaining: number;
  /**
   * Highest entry seq this taker's predicate was asked about. Entries are
   * scanned oldest first, so every remaining entry with `seq <= seen` is one
   * this taker rejected: predicates run once per (taker, item) pair.
   */
  seen: number;
  active: boolean;
}

/**
 * A queue whose items are taken selectively and exclusively: each item goes
 * to at most one taker, the earliest-subscribed taker whose predicate
 * accepts it. The reactive replacement for wool's `PredicatedQueue`: a
 * taker with a predicate gets the first matching item; items it does not
 * match stay queued for others.
 *
 * ```
 * tryPut:             --a--B--C--|
 * take(isUpper):      ^----(B|)
 * take(any, 2):       -^-a-----(C|)      (subscribed second: B went to the first taker)
 * take(any):          ---^-------|       (nothing left for it; completes at close)
 * ```
 *
 * A plain class, not an Observable: put items in with {@link PredicatedQueue.put}
 * (waits while full) or {@link PredicatedQueue.tryPut}, take them with
 * {@link PredicatedQueue.take}, which returns a cold Observable: each
 * subscription to it is a *taker* that receives up to `count` items matching
 * its predicate (queued ones first, oldest first, then new ones as they
 * arrive) and completes. Its result is an ordinary Observable: pipe it into
 * anything (`filter`, `take`, `timeout`, ...) — what a taker receives has
 * already left the queue.
 *
 * - Items that arrive while no taker wants them are buffered, in order, for
 *   later takers. An item leaves the queue only at the moment it is
 *   delivered, so unsubscribing a taker never loses an item, even in the
 *   middle of a synchronous delivery (a downstream `take(1)`).
 * - Takers are served in subscription order (FIFO): a new item goes to the
 *   earliest taker that accepts it; a new taker gets the oldest items it
 *   accepts.
 * - With `maxSize`, `put` waits while the buffer is full (backpressure) and
 *   waiting puts are admitted in order as space frees; an `AbortSignal`
 *   withdraws a waiting put. A put whose item a taker wants right away
 *   completes at once, even when the buffer is full.
 * - Predicates should be pure: each is asked at most once per item, when the
 *   item or the taker arrives. A predicate that throws errors its own taker;
 *   the item stays for the others.
 * - Re-entrancy is safe: a taker's callbacks may put items, subscribe or
 *   unsubscribe takers, remove items or close the queue. The state changes
 *   at once, but deliveries it causes wait until the current callback
 *   returns, then follow the rules above (no nested, out-of-order `next`).
 * - `close()` ends the input: buffered items remain takeable, takers that can
 *   no longer be satisfied complete. `error(err)` fails the queue: buffered
 *   items are discarded and every taker errors with `err`.
 *
 * @example Lend workers tagged 'gpu' from a pool
 * ```ts
 * const pool = new PredicatedQueue<WorkerInfo>();
 * pool.tryPut(cpuWorker);
 * pool.tryPut(gpuWorker);
 *
 * // Exclusive: a concurrent caller asking for a gpu worker gets another one.
 * const worker = await firstValueFrom(pool.take((w) => w.tags.includes('gpu')));
 * try {
 *   await runOn(worker);
 * } finally {
 *   await pool.put(worker); // give it back (waits if the pool is bounded and full)
 * }
 *
 * // A worker that went away must leave the pool.
 * pool.remove((w) => w.uid === droppedUid);
 * ```
 * @typeParam T The items.
 */
export class PredicatedQueue<T> {
  /** The bound given at construction (`Infinity` when unbounded). */
  readonly maxSize: number;

  /** Sorted by seq; the first `#buffered` are buffered, the rest waiting puts. */
  readonly #entries: Entry<T>[] = [];
  #buffered = 0;
  /** Active takers in subscription order. */
  readonly #takers: Taker<T>[] = [];
  #seq = 0;
  #draining = false;
  #status: 'open' | 'closed' | 'errored' = 'open';
  #error: unknown = undefined;

  /**
   * @param options `maxSize`: the bound (positive integer or `Infinity`).
   * @throws TypeError naming the bad value if `options` or `maxSize` is invalid.
   */
  constructor(options: PredicatedQueueOptions = {}) {
    this.maxSize = checkMaxSize(options);
  }

  /** Number of buffered items (waiting puts not included). */
  get size(): number {
    return this.#buffered;
  }

  /** A frozen snapshot of the buffered items, oldest first. */
  get items(): readonly T[] {
    return Object.freeze(this.#entries.slice(0, this.#buffered).map((entry) => entry.item));
  }

  /** True when `size` has reached `maxSize`: a put not wanted by a taker would wait. */
  get full(): boolean {
    return this.#buffered >= this.maxSize;
  }

  /** True once `close()` or `error()` was called. */
  get closed(): boolean {
    return this.#status !== 'open';
  }

  /**
   * Offers an item without waiting. It goes to the earliest waiting taker
   * that accepts it, else into the buffer if there is room and no put is
   * waiting ahead of it.
   *
   * Called from inside a taker's callback while the queue is full, it
   * cannot know synchronously whether a taker will accept the item and
   * returns false: use `put` there.
   * @param item The item.
   * @returns True if the item was accepted (taken or buffered), false if the
   * queue is full and no taker wanted it (the queue is then unchanged).
   * @throws QueueClosedError if the queue is closed or failed.
   */
  tryPut(item: T): boolean {
    if (this.#status !== 'open') throw this.#closedError();
    if (this.#hasRoom()) {
      this.#append(item, undefined, true);
      this.#drain();
      return true;
    }
    if (this.#draining) return false;
    // Full: offer the item to the takers; withdraw it if nobody took it.
    const entry = this.#append(item, undefined, false);
    this.#drain();
    if (entry.state === 'waiting') this.#discard(entry, 'dropped');
    return entry.accepted;
  }

  /**
   * Puts an item, waiting while the queue is full (backpressure). Waiting
   * puts are admitted in call order as space frees; meanwhile their items
   * are already offered to takers, and one that a taker takes completes its
   * put at once.
   * @param item The item.
   * @param options `signal`: aborting it withdraws a put that is still
   * waiting (the promise rejects with the signal's reason); no effect once
   * the item was accepted.
   * @returns A promise that resolves once the item is accepted (buffered or
   * taken), or removed by `remove` while waiting; it rejects with
   * {@link QueueClosedError} if the queue is closed before that.
   */
  put(item: T, options: { readonly signal?: AbortSignal } = {}): Promise<void> {
    if (this.#status !== 'open') return Promise.reject(this.#closedError());
    const signal = options.signal;
    if (signal !== undefined && !isAbortSignal(signal)) {
      return Promise.reject(new TypeError(`put: signal must be an AbortSignal, got ${describeValue(signal)}`));
    }
    return new Promise<void>((resolve, reject) => {
      const abort = (): void => {
        // Like fetch() and events.once(): reject with the signal's reason as is.
        // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
        reject(signal?.reason);
      };
      if (signal?.aborted === true) {
        abort();
        return;
      }
      if (this.#hasRoom()) {
        this.#append(item, undefined, true);
        this.#drain();
        resolve();
        return;
      }
      const onAbort = (): void => {
        if (entry.state !== 'waiting') return;
        this.#discard(entry, 'dropped');
        entry.putter = undefined;
        abort();
      };
      const entry = this.#append(
        item,
        {
          resolve: () => {
            signal?.removeEventListener('abort', onAbort);
            resolve();
          },
          reject: (reason: Error) => {
            signal?.removeEventListener('abort', onAbort);
            reject(reason);
          },
        },
        false,
      );
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#drain();
    });
  }

  /**
   * Removes every queued item (buffered, or waiting to be put) that `match`
   * accepts, e.g. a worker that went away. Waiting puts whose item is
   * removed resolve; freed space admits waiting puts.
   * @param match Called once per queued item; if it throws, nothing is removed.
   * @returns The number of items removed.
   * @throws TypeError if `match` is not a function.
   */
  remove(match: (item: T) => boolean): number {
    if (typeof match !== 'function') {
      throw new TypeError(`remove: match must be a function, got ${describeValue(match)}`);
    }
    const doomed = this.#entries.filter((entry) => Boolean(match(entry.item)));
    for (const entry of doomed) {
      if (entry.state !== 'buffered' && entry.state !== 'waiting') continue;
      this.#discard(entry, 'dropped');
      const putter = entry.putter;
      entry.putter = undefined;
      putter?.resolve();
    }
    this.#admit();
    return doomed.length;
  }

  /**
   * Ends the input. Later puts fail with {@link QueueClosedError}, and so do
   * puts still waiting for space. Buffered items stay takeable; takers that
   * no buffered item can satisfy complete, now or (for later takers) once
   * they got what they could. Idempotent; no effect after `error`.
   */
  close(): void {
    if (this.#status !== 'open') return;
    this.#status = 'closed';
    for (const entry of this.#entries.slice(this.#buffered)) {
      this.#discard(entry, 'dropped');
      const putter = entry.putter;
      entry.putter = undefined;
      putter?.reject(new QueueClosedError());
    }
    this.#drain();
  }

  /**
   * Fails the queue: buffered items are discarded, every taker (current and
   * later) errors with `err`, waiting and later puts fail with a
   * {@link QueueClosedError} whose `cause` is `err`. No effect once closed.
   * @param err The error to send to the takers.
   */
  error(err: unknown): void {
    if (this.#status !== 'open') return;
    this.#status = 'errored';
    this.#error = err;
    const entries = this.#entries.splice(0);
    this.#buffered = 0;
    for (const entry of entries) {
      entry.state = 'dropped';
      const putter = entry.putter;
      entry.putter = undefined;
      putter?.reject(new QueueClosedError({ cause: err }));
    }
    this.#drain();
  }

  /**
   * Takes items: a cold Observable whose every subscription is a taker that
   * receives the first `count` items matching `predicate` — queued ones
   * first, oldest first, then new ones as they are put — none of which any
   * other taker receives, then completes.
   *
   * ```
   * tryPut:            --a--G--b--H--|
   * take(isGpu):       ^----(G|)
   * take(isGpu):       ^----------(H|)   (the first taker subscribed first, so it got G)
   * take(any, 2):      --------------^(ab|)  (kept until someone wanted them; closed: complete)
   * ```
   *
   * If the queue is closed, a taker completes once no queued item is left
   * for it; if it failed, the taker errors. A throwing predicate errors its
   * own taker only; the item stays queued.
   *
   * @example
   * ```ts
   * const gpu = await firstValueFrom(pool.take((w) => w.tags.includes('gpu')));
   * ```
   * @param predicate Called with each candidate item; a truthy result takes
   * it. A type guard narrows the result's item type.
   * @param count How many items to take before completing: a positive
   * integer or `Infinity`. Defaults to 1.
   * @returns A cold Observable of the taken items.
   * @throws TypeError naming the value if `predicate` is not a function or
   * `count` is not a positive integer or `Infinity`.
   */
  take<S extends T>(predicate: (item: T) => item is S, count?: number): Observable<S>;
  take(predicate: (item: T) => boolean, count?: number): Observable<T>;
  take(predicate: (item: T) => boolean, count = 1): Observable<T> {
    checkTakeArguments('PredicatedQueue.take', predicate, count);
    const test = (item: T): boolean => Boolean(predicate(item));
    return new Observable<T>((subscriber) => {
      this.#attach(subscriber, test, count);
    });
  }

  #attach(subscriber: Subscriber<T>, predicate: (item: T) => boolean, count: number): void {
    const taker: Taker<T> = { predicate, subscriber, remaining: count, seen: 0, active: true };
    this.#takers.push(taker);
    // Registered before draining: a subscriber that unsubscribes during a
    // synchronous delivery (e.g. a downstream take(1)) stops receiving at once.
    subscriber.add(() => this.#detach(taker));
    this.#drain();
  }

  #detach(taker: Taker<T>): void {
    if (!taker.active) return;
    taker.active = false;
    const index = this.#takers.indexOf(taker);
    if (index >= 0) this.#takers.splice(index, 1);
  }

  #hasRoom(): boolean {
    return this.#buffered < this.maxSize && this.#buffered === this.#entries.length;
  }

  #append(item: T, putter: Putter | undefined, buffered: boolean): Entry<T> {
    this.#seq += 1;
    const entry: Entry<T> = {
      seq: this.#seq,
      item,
      state: buffered ? 'buffered' : 'waiting',
      accepted: buffered,
      putter,
    };
    this.#entries.push(entry);
    if (buffered) this.#buffered += 1;
    return entry;
  }

  #discard(entry: Entry<T>, state: 'taken' | 'dropped'): void {
    const index = this.#entries.indexOf(entry);
    if (index < 0) return;
    this.#entries.splice(index, 1);
    if (index < this.#buffered) this.#buffered -= 1;
    entry.state = state;
  }

  /** Admits waiting puts, in order, while there is room. */
  #admit(): void {
    while (this.#buffered < this.maxSize && this.#buffered < this.#entries.length) {
      const entry = this.#entries[this.#buffered];
      if (entry === undefined) break;
      entry.state = 'buffered';
      entry.accepted = true;
      this.#buffered += 1;
      const putter = entry.putter;
      entry.putter = undefined;
      putter?.resolve();
    }
  }

  /**
   * Delivers until no taker accepts any queued item. Only the outermost call
   * loops: a call made from a taker's callback just returns, and the loop
   * picks its change up after the callback, so every decision is taken on
   * settled state and in order.
   */
  #drain(): void {
    if (this.#draining) return;
    this.#draining = true;
    try {
      while (this.#step() || this.#settle()) {
        // each round performed one delivery, error or completion
      }
    } finally {
      this.#draining = false;
    }
  }

  /**
   * Performs one delivery: the oldest queued item that some taker accepts,
   * to the earliest such taker. Returns true if it did something (or the
   * state changed under it), false when there is nothing to deliver.
   */
  #step(): boolean {
    const takers = this.#takers;
    const entries = this.#entries;
    if (takers.length === 0 || entries.length === 0) return false;
    let floor = Infinity;
    for (const taker of takers) floor = Math.min(floor, taker.seen);
    for (let i = firstAbove(entries, floor); i < entries.length; i += 1) {
      const entry = entries[i];
      if (entry === undefined) break;
      for (let j = 0; j < takers.length; j += 1) {
        const taker = takers[j];
        if (taker === undefined) break;
        if (entry.seq <= taker.seen) continue;
        taker.seen = entry.seq;
        let wanted: boolean;
        try {
          wanted = Boolean(taker.predicate(entry.item));
        } catch (err) {
          this.#detach(taker);
          taker.subscriber.error(err);
          return true;
        }
        const live = entry.state === 'buffered' || entry.state === 'waiting';
        if (wanted && live && taker.active) {
          this.#deliver(entry, taker);
          return true;
        }
        // The predicate itself changed the queue: rescan from settled state.
        if (entries[i] !== entry || takers[j] !== taker) return true;
      }
    }
    return false;
  }

  #deliver(entry: Entry<T>, taker: Taker<T>): void {
    this.#discard(entry, 'taken');
    entry.accepted = true;
    const putter = entry.putter;
    entry.putter = undefined;
    taker.remaining -= 1;
    const done = taker.remaining <= 0;
    if (done) this.#detach(taker);
    this.#admit();
    putter?.resolve();
    taker.subscriber.next(entry.item);
    if (done) taker.subscriber.complete();
  }

  /** Once nothing is deliverable: ends one taker of a closed or failed queue. */
  #settle(): boolean {
    if (this.#status === 'open') return false;
    const taker = this.#takers[0];
    if (taker === undefined) return false;
    this.#detach(taker);
    if (this.#status === 'errored') taker.subscriber.error(this.#error);
    else taker.subscriber.complete();
    return true;
  }

  #closedError(): QueueClosedError {
    return this.#status === 'errored' ? new QueueClosedError({ cause: this.#error }) : new QueueClosedError();
  }
}

/** Index of the first entry whose seq is above `seq` (entries sorted by seq). */
function firstAbove<T>(entries: readonly Entry<T>[], seq: number): number {
  let low = 0;
  let high = entries.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if ((entries[mid]?.seq ?? Infinity) <= seq) low = mid + 1;
    else high = mid;
  }
  return low;
}

function checkMaxSize(options: unknown): number {
  if (typeof options !== 'object' || options === null) {
    throw new TypeError(`PredicatedQueue: options must be an object, got ${describeValue(options)}`);
  }
  const maxSize = (options as { maxSize?: unknown }).maxSize ?? Infinity;
  if (maxSize === Infinity || (Number.isSafeInteger(maxSize) && (maxSize as number) > 0)) {
    return maxSize as number;
  }
  throw new TypeError(`PredicatedQueue: maxSize must be a positive integer or Infinity, got ${describeValue(maxSize)}`);
}
