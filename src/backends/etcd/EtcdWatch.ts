import type { Etcd3, ICallable, IDuplexStream, IKeyValue, IRangeRequest, IWatchRequest, IWatchResponse } from 'etcd3';
import { loadEtcd3 } from './loadEtcd3.js';
import type { Subject } from 'rxjs';
import { decodeWorker } from '../../codec/decodeWorker.js';
import type { DiscoverySink } from '../../discovery/DiscoverySink.js';
import { errorMessage } from '../../discovery/errorMessage.js';
import { retryDelay } from '../../discovery/retryDelay.js';
import type { DiscoveryDiagnostic } from '../../discovery/types.js';
import { WorkerLedger } from '../../events/WorkerLedger.js';
import type { DiscoveryEvent } from '../../events/types.js';
import { WorkerDecodeError } from '../../errors/WorkerDecodeError.js';
import type { WorkerInfo } from '../../model/types.js';
import type { EtcdConnection } from './EtcdConnection.js';
import type { RangePage } from './decodeRangeResponse.js';
import { readRange } from './readRange.js';
import type { EtcdSettings } from './types.js';

/**
 * The `range_end` that makes an etcd range cover every key starting with
 * `prefix`: the prefix with its last byte below 0xff incremented (what
 * `etcdctl get --prefix` sends).
 * @param prefix The key prefix (non-empty).
 * @returns The exclusive end of the range.
 * @internal
 */
function prefixRangeEnd(prefix: Buffer): Buffer {
  const end = Buffer.from(prefix);
  for (let i = end.length - 1; i >= 0; i--) {
    const byte = end[i] as number;
    if (byte < 0xff) {
      end[i] = byte + 1;
      return end.subarray(0, i + 1);
    }
  }
  // Every byte is 0xff: the range runs to the end of the keyspace.
  return Buffer.from([0]);
}

/** Leading hex digits of a uid over which {@link splitPoints} spreads the parts of a read. */
const SPLIT_DIGITS = 4;

/**
 * Where to split the rest of a read, the keys after `after` up to `end`,
 * into about `parts` ranges of as many keys each, for keys `<prefix><uid>`
 * whose uids are random lowercase hex (UUIDs): at `<prefix><4 hex digits>`,
 * evenly spaced above the first four of `after`'s uid. The ranges cover
 * every key in between whatever it is; only their sizes rely on the uids.
 * @param prefix The key prefix.
 * @param after The last key read so far.
 * @param end The end of the whole range.
 * @param parts How many parts to aim at.
 * @returns The end of each part, in order, the last being `end` (just
 * `[end]` when `after`'s uid does not start with four lowercase hex digits).
 * @internal
 */
function splitPoints(prefix: Buffer, after: Buffer, end: Buffer, parts: number): Buffer[] {
  let low = 0;
  for (let i = 0; i < SPLIT_DIGITS; i++) {
    const byte = after[prefix.length + i] ?? -1;
    const digit = byte >= 0x30 && byte <= 0x39 ? byte - 0x30 : byte >= 0x61 && byte <= 0x66 ? byte - 0x61 + 10 : -1;
    if (digit < 0) return [end];
    low = low * 16 + digit;
  }
  // Boundaries from low + 1 up: every one sorts after `after`, whose digits are `low`.
  const span = 16 ** SPLIT_DIGITS - (low + 1);
  const count = Math.min(parts, span);
  const points: Buffer[] = [];
  for (let i = 1; i < count; i++) {
    const digits = (low + 1 + Math.floor((span * i) / count)).toString(16).padStart(SPLIT_DIGITS, '0');
    points.push(Buffer.concat([prefix, Buffer.from(digits, 'latin1')]));
  }
  points.push(end);
  return points;
}

type WatchStream = IDuplexStream<IWatchRequest, IWatchResponse>;

/** Keys in the first page of a read (nothing is known yet of the records' size). */
const FIRST_PAGE_KEYS = 1000;
/** Bytes aimed at per part of the rest of a read. */
const PAGE_BYTES = 4 * 1024 * 1024;
/**
 * Bytes a later request may bring at most (its limit, at the largest
 * average record size seen so far): twice a part, so that a part comes in
 * one response, and still well below the client's 64 MiB message limit, so
 * that records larger than the ones seen so far still fit.
 */
const MAX_PAGE_BYTES = 2 * PAGE_BYTES;
/** A record's bytes in a range response besides its key and value (revisions, version, lease, framing). */
const RECORD_OVERHEAD_BYTES = 40;
const ZERO_BYTE = Buffer.from([0]);
/** Records decoded between two turns of the event loop while the next page is on its way. */
const DECODE_SLICE = 2000;

/** A record that did not decode, reported once its read has succeeded. */
class Skipped {
  constructor(
    readonly key: Buffer,
    readonly modRevision: number | bigint | string,
    readonly uid: string,
    readonly error: unknown,
  ) {}
}

/** A whole read of the prefix, decoded. */
interface Snapshot {
  readonly workers: Map<string, WorkerInfo>;
  readonly skipped: readonly Skipped[];
  readonly revision: number;
}
/** Retry delays after a failure, ms: doubling from the first, capped at the last. */
const RETRY_FIRST_MS = 100;
const RETRY_MAX_MS = 2000;

/**
 * Errors a retry cannot fix: wrong or missing credentials ("user name is
 * empty" is an invalid argument), missing permissions, a closed client.
 */
function isFatal(error: unknown): boolean {
  const {
    ClientClosedError,
    EtcdAuthenticationFailedError,
    EtcdPermissionDeniedError,
    GRPCInvalidArgumentError,
    GRPCUnauthenticatedError,
  } = loadEtcd3();
  return (
    error instanceof EtcdAuthenticationFailedError ||
    error instanceof EtcdPermissionDeniedError ||
    error instanceof GRPCUnauthenticatedError ||
    error instanceof GRPCInvalidArgumentError ||
    error instanceof ClientClosedError
  );
}

/**
 * One subscription of {@link etcdDiscovery}'s `events()` (the `watch` of
 * its {@link createDiscovery}): reads the namespace's workers at a
 * revision R (paged, all at R), emits `worker-added` for each in one
 * synchronous burst, calls `synced()` right after that burst (once: never
 * again on a later re-read), then watches from R+1.
 *
 * What the subscriber was told lives in a {@link WorkerLedger}, which
 * decides every event:
 * - The last revision whose events were all delivered is kept; a broken
 *   watch stream is re-opened from that revision + 1 (no gap, no
 *   duplicate), after a short back-off, on whichever endpoint answers.
 * - When etcd has compacted that revision away (the watch is cancelled
 *   with a compact revision), the prefix is read again and reconciled with
 *   the ledger: only real changes are emitted, drops first.
 * - A PUT is `ledger.put` (`worker-added` for a new uid, `worker-updated`
 *   when the decoded worker differs from the one reported, nothing
 *   otherwise); a DELETE is `ledger.drop` (`worker-dropped` with the last
 *   reported metadata).
 * - A value that does not decode (or whose uid is not its key's) is skipped
 *   and reported as a `malformed-record` diagnostic; a worker whose record
 *   turns malformed is dropped, as a re-read would.
 * - Authentication and permission failures (and requests etcd rejects as
 *   invalid, such as one without a user name) end the stream with the error;
 *   anything else (unreachable cluster, lost leader) is retried forever
 *   and reported as `warning` diagnostics, then `recovered`.
 * @internal
 */
export class EtcdWatch {
  readonly #settings: EtcdSettings;
  readonly #connection: EtcdConnection;
  readonly #diagnostics: Subject<DiscoveryDiagnostic>;
  readonly #sink: DiscoverySink;
  readonly #prefix: Buffer;
  readonly #rangeEnd: Buffer;
  /** What this subscription has told its subscriber. */
  readonly #ledger = new WorkerLedger();
  #client: Etcd3 | undefined;
  /** The last revision whose changes were all delivered; 0 until the first read. */
  #revision = 0;
  #stream: WatchStream | undefined;
  /** Settles the attempt to open `#stream` while etcd has not confirmed it yet (see `#watch`). */
  #abandonOpening: (() => void) | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** Bumped whenever a read or stream is abandoned, so its late callbacks are ignored. */
  #generation = 0;
  #failures = 0;
  #stopped = false;

  /**
   * @param settings The discovery's settings.
   * @param connection The discovery's shared client.
   * @param diagnostics Where to report skipped records and reconnections.
   * @param sink The subscriber.
   */
  constructor(
    settings: EtcdSettings,
    connection: EtcdConnection,
    diagnostics: Subject<DiscoveryDiagnostic>,
    sink: DiscoverySink,
  ) {
    this.#settings = settings;
    this.#connection = connection;
    this.#diagnostics = diagnostics;
    this.#sink = sink;
    this.#prefix = Buffer.from(settings.workersPrefix, 'utf8');
    this.#rangeEnd = prefixRangeEnd(this.#prefix);
  }

  /** Connects and starts the initial read. */
  start(): void {
    this.#client = this.#connection.acquire();
    this.#connection.track(this.#list());
  }

  /** Closes the watch stream, cancels any timer and releases the client. Idempotent. */
  stop(): void {
    if (this.#stopped) return;
    this.#stopped = true;
    this.#generation++;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#closeStream();
    if (this.#client !== undefined) {
      this.#client = undefined;
      this.#connection.release();
    }
  }

  #report(kind: DiscoveryDiagnostic['kind'], text: string, extra: { uid?: string; error?: unknown } = {}): void {
    this.#diagnostics.next({ kind, namespace: this.#settings.namespace, message: text, ...extra });
  }

  #emit(events: readonly DiscoveryEvent[]): void {
    for (const event of events) {
      if (this.#stopped || this.#sink.closed) return;
      this.#sink.next(event);
    }
  }

  #fail(error: unknown): void {
    if (this.#stopped) return;
    this.stop();
    this.#sink.error(error);
  }

  /** Handles a failed read or stream: fatal errors end the stream, others retry after a back-off. */
  #retry(error: unknown, what: string, then: () => void): void {
    if (this.#stopped) return;
    if (isFatal(error)) {
      this.#fail(error);
      return;
    }
    const delay = retryDelay(this.#failures, RETRY_FIRST_MS, RETRY_MAX_MS);
    this.#failures++;
    this.#report('warning', `etcd ${what} failed (${errorMessage(error)}); retrying in ${delay} ms`, { error });
    const generation = ++this.#generation;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      if (!this.#stopped && generation === this.#generation) then();
    }, delay);
  }

  /**
   * Reads every key under the prefix at one revision, a page at a time, and
   * decodes each page while etcd serves the next one.
   *
   * The first page holds {@link FIRST_PAGE_KEYS} keys, and its answer says
   * how many keys the range holds; the rest is read in parts of about
   * {@link PAGE_BYTES} at the largest average record size seen so far, each
   * part a key range of its own ({@link splitPoints}), all at the first
   * page's revision. (etcd 3.4 walks every key from a request's start to its
   * range end for each limited read: read up to the prefix's end, every page
   * would make it walk all the keys after it again. A part's range ends
   * where the part does, so each key is walked about once.) A part
   * that holds more than its request's limit lets through is read on from its
   * last key. Records that do not decode are returned, to be reported only
   * once the whole read has succeeded (a failed read is retried, and would
   * report them again).
   * @returns The decoded workers by uid, the skipped records and the read's
   * revision; `undefined` if the read was abandoned meanwhile.
   */
  async #readAll(client: Etcd3, generation: number): Promise<Snapshot | undefined> {
    const workers = new Map<string, WorkerInfo>();
    const skipped: Skipped[] = [];
    let revision: string | undefined;
    let bytesPerKey = 0;
    /** The end of the range being read, and those of the parts after it. */
    let partEnd = this.#rangeEnd;
    let nextEnds: Buffer[] = [];
    let first = true;
    let pending: Promise<RangePage> = readRange(
      client,
      { key: this.#prefix, range_end: this.#rangeEnd, limit: FIRST_PAGE_KEYS },
      this.#settings,
    );
    for (;;) {
      const response = await pending;
      if (this.#stopped || generation !== this.#generation) return undefined;
      revision ??= response.revision;
      const kvs = response.records;
      const last = kvs[kvs.length - 1];
      let next: IRangeRequest | undefined;
      if ((response.more && last !== undefined) || nextEnds.length > 0) {
        if (last !== undefined) {
          let bytes = 0;
          for (const kv of kvs) bytes += kv.key.length + kv.value.length + RECORD_OVERHEAD_BYTES;
          bytesPerKey = Math.max(bytesPerKey, bytes / kvs.length);
        }
        if (first && last !== undefined) {
          const parts = Math.ceil(((response.count - kvs.length) * bytesPerKey) / PAGE_BYTES);
          [partEnd = this.#rangeEnd, ...nextEnds] = splitPoints(this.#prefix, last.key, this.#rangeEnd, parts);
        }
        const limit = Math.max(1, Math.floor(MAX_PAGE_BYTES / bytesPerKey));
        if (response.more && last !== undefined) {
          next = { key: Buffer.concat([last.key, ZERO_BYTE]), range_end: partEnd, limit, revision };
        } else {
          const start = partEnd;
          partEnd = nextEnds.shift() ?? this.#rangeEnd;
          next = { key: start, range_end: partEnd, limit, revision };
        }
        pending = readRange(client, next, this.#settings);
        // Awaited below, unless the read is abandoned meanwhile.
        pending.catch(() => undefined);
      }
      first = false;
      for (let start = 0; start < kvs.length; start += DECODE_SLICE) {
        if (next !== undefined) {
          // Let the client send the next request (and take in its answer) while this page is decoded.
          await new Promise<void>((resolve) => setImmediate(resolve));
          if (this.#stopped || generation !== this.#generation) return undefined;
        }
        const end = Math.min(kvs.length, start + DECODE_SLICE);
        for (let i = start; i < end; i++) {
          const record = kvs[i] as RangePage['records'][number];
          const decoded = this.#tryDecode(record.key, record.value, record.modRevision);
          if (decoded instanceof Skipped) skipped.push(decoded);
          else workers.set(decoded.uid, decoded);
        }
      }
      if (next === undefined) break;
    }
    return { workers, skipped, revision: Number(revision) };
  }

  /** (Re-)reads the prefix, emits the difference to what was reported, then watches. */
  async #list(): Promise<void> {
    const client = this.#client;
    if (client === undefined || this.#stopped) return;
    const generation = ++this.#generation;
    this.#closeStream();
    let snapshot: Snapshot | undefined;
    try {
      snapshot = await this.#readAll(client, generation);
    } catch (error) {
      if (generation === this.#generation) this.#retry(error, 'read', () => void this.#list());
      return;
    }
    if (snapshot === undefined || this.#stopped || generation !== this.#generation) return;
    for (const record of snapshot.skipped) this.#reportSkipped(record);
    const next = snapshot.workers;
    // The first read is the initial state; a later one (after compaction) only catches up.
    const initial = this.#revision === 0;
    const events = this.#ledger.reconcile(next);
    this.#revision = snapshot.revision;
    // Watch first: a subscriber unsubscribing from inside the burst stops it again.
    this.#watch();
    if (!initial) {
      this.#report(
        'recovered',
        `Re-read ${next.size} worker(s) at revision ${snapshot.revision}: ` +
          `${events.length} change(s) since the last event`,
      );
    }
    this.#emit(events);
    // Synced once, right after the initial burst (nothing else can be emitted in between: the watch reports
    // asynchronously).
    if (initial && !this.#stopped && !this.#sink.closed) this.#sink.synced();
  }

  /**
   * Opens a watch stream from the revision after the last one delivered.
   *
   * The stream is opened through the client's connection pool, and the
   * attempt only counts as a success once etcd confirms the watch: a member
   * that is down then fails the attempt, its circuit breaker opens after a
   * few failures, and the pool moves on to another endpoint. (Counting the
   * mere creation of a gRPC stream as a success, as etcd3's own watch
   * manager does, keeps a client knocking on a dead member.)
   */
  #watch(): void {
    const client = this.#client;
    if (client === undefined || this.#stopped) return;
    const generation = ++this.#generation;
    this.#closeStream();
    const request = { key: this.#prefix, range_end: this.#rangeEnd, start_revision: this.#revision + 1 };
    const pool = (client as unknown as { pool?: ICallable<unknown> }).pool;
    const open = (makeStream: () => WatchStream): Promise<void> =>
      new Promise<void>((resolve, reject) => {
        if (this.#stopped || generation !== this.#generation) {
          resolve();
          return;
        }
        let created = false;
        const stream = makeStream();
        this.#stream = stream;
        const settled = (): void => {
          clearTimeout(timer);
          if (this.#abandonOpening === abandon) this.#abandonOpening = undefined;
        };
        const timer = setTimeout(() => {
          settled();
          EtcdWatch.#close(stream);
          reject(
            new (loadEtcd3().GRPCDeadlineExceededError)(
              `etcd did not confirm the watch within ${this.#settings.requestTimeout} ms`,
            ),
          );
        }, this.#settings.requestTimeout);
        // Closed before etcd confirmed it (unsubscribed, abandoned): settle
        // now, but close the stream only once etcd confirms the watch — one
        // cancelled before that can leave the watcher open on the server
        // (seen with etcd 3.4 and a shared client: a subscriber unsubscribing
        // right after its initial burst leaked a watcher and a watch stream
        // each time) — or once it fails, or after requestTimeout.
        let closer: ReturnType<typeof setTimeout> | undefined;
        const abandon = (): void => {
          settled();
          resolve();
          if (closer !== undefined) return;
          closer = setTimeout(() => EtcdWatch.#close(stream), this.#settings.requestTimeout);
          closer.unref();
        };
        this.#abandonOpening = abandon;
        stream.on('data', (response) => {
          if (closer !== undefined) {
            // Abandoned: close as soon as the watch exists on the server.
            if (response.created) {
              clearTimeout(closer);
              EtcdWatch.#close(stream);
            }
            return;
          }
          if (!created && response.created) {
            created = true;
            settled();
            resolve();
          }
          this.#onResponse(response, generation);
        });
        const broken = (error: Error): void => {
          if (closer !== undefined) {
            clearTimeout(closer);
            return;
          }
          if (created) {
            this.#onBroken(error, generation);
            return;
          }
          settled();
          reject(loadEtcd3().castGrpcError(error));
        };
        stream.on('error', broken);
        stream.on('end', () => broken(new (loadEtcd3().EtcdWatchStreamEnded)()));
        stream.write({ create_request: request });
      });
    const opening =
      pool === undefined
        ? client.watchClient.watch().then((stream) => open(() => stream))
        : pool.withConnection('Watch', ({ client: grpc, metadata }) =>
            open(() => (grpc as unknown as { watch: (metadata: unknown) => WatchStream }).watch(metadata)),
          );
    opening.catch((error: unknown) => {
      if (this.#stopped || generation !== this.#generation) return;
      this.#closeStream();
      this.#retry(error, `watch (from revision ${this.#revision + 1})`, () => this.#reconnect());
    });
  }

  /** After a broken stream: checks the cluster answers (and refreshes an expired auth token), then watches again. */
  #reconnect(): void {
    const client = this.#client;
    if (client === undefined || this.#stopped) return;
    const generation = ++this.#generation;
    client.kv.range({ key: this.#prefix, range_end: this.#rangeEnd, count_only: true }).then(
      () => {
        if (!this.#stopped && generation === this.#generation) this.#watch();
      },
      (error: unknown) => {
        if (generation === this.#generation) this.#retry(error, 'reconnect', () => this.#reconnect());
      },
    );
  }

  #onBroken(error: unknown, generation: number): void {
    if (this.#stopped || generation !== this.#generation) return;
    this.#closeStream();
    this.#retry(error, `watch (from revision ${this.#revision + 1})`, () => this.#reconnect());
  }

  #onResponse(response: IWatchResponse, generation: number): void {
    if (this.#stopped || generation !== this.#generation) return;
    if (response.canceled) {
      this.#closeStream();
      const compacted = Number(response.compact_revision);
      if (compacted > 0) {
        this.#report(
          'warning',
          `Revision ${this.#revision + 1} was compacted (compact revision ${compacted}); re-reading the namespace`,
        );
        void this.#list();
        return;
      }
      const error = loadEtcd3().castGrpcErrorMessage(response.cancel_reason || 'etcd cancelled the watch');
      this.#retry(error, 'watch', () => void this.#list());
      return;
    }
    if (response.created) {
      if (this.#failures > 0) {
        this.#failures = 0;
        this.#report('recovered', `Watching again from revision ${this.#revision + 1}`);
      }
      return;
    }
    const events: DiscoveryEvent[] = [];
    for (const change of response.events) {
      const event = this.#apply(change.type, change.kv);
      if (event !== undefined) events.push(event);
      this.#revision = Math.max(this.#revision, Number(change.kv.mod_revision));
    }
    this.#emit(events);
  }

  /** Applies one change to the ledger; returns the event it makes, if any. */
  #apply(type: string, kv: IKeyValue): DiscoveryEvent | undefined {
    // A deleted key does not say why: its lease expired or was revoked, or it was deleted.
    if (type === 'Delete') return this.#ledger.drop(this.#uidOf(kv.key));
    const worker = this.#decode(kv);
    // A record that turned malformed is dropped, as a re-read would.
    return worker === undefined ? this.#ledger.drop(this.#uidOf(kv.key), 'malformed') : this.#ledger.put(worker);
  }

  #uidOf(key: Buffer): string {
    return key.subarray(this.#prefix.length).toString('utf8');
  }

  /** Decodes a record; reports and skips one that is not valid worker metadata for its key. */
  #decode(kv: IKeyValue): WorkerInfo | undefined {
    const decoded = this.#tryDecode(kv.key, kv.value, kv.mod_revision);
    if (!(decoded instanceof Skipped)) return decoded;
    this.#reportSkipped(decoded);
    return undefined;
  }

  /** Decodes a record; one that is not valid worker metadata for its key is returned as {@link Skipped}. */
  #tryDecode(key: Buffer, value: Buffer, modRevision: number | bigint | string): WorkerInfo | Skipped {
    try {
      const worker = decodeWorker(value);
      // The key is `<prefix><uid>`: compared as bytes, without decoding the key.
      if (!this.#keyIsOf(key, worker.uid)) {
        throw new WorkerDecodeError(
          `the record describes worker ${worker.uid}, not the key's ${JSON.stringify(this.#uidOf(key))}`,
        );
      }
      return worker;
    } catch (error) {
      return new Skipped(key, modRevision, this.#uidOf(key), error);
    }
  }

  /** Whether `key` is exactly the prefix followed by `uid` (ASCII: a valid uid is a lowercase UUID). */
  #keyIsOf(key: Buffer, uid: string): boolean {
    const start = this.#prefix.length;
    if (key.length !== start + uid.length) return false;
    for (let i = 0; i < uid.length; i++) {
      if (key[start + i] !== uid.charCodeAt(i)) return false;
    }
    return true;
  }

  #reportSkipped({ key, modRevision, uid, error }: Skipped): void {
    this.#report(
      'malformed-record',
      `Skipped the record at ${JSON.stringify(key.toString('utf8'))} (revision ${modRevision}): ${errorMessage(error)}`,
      { uid, error },
    );
  }

  #closeStream(): void {
    const abandon = this.#abandonOpening;
    this.#abandonOpening = undefined;
    const stream = this.#stream;
    this.#stream = undefined;
    // Still opening: abandoned, it closes itself once etcd confirms the watch.
    if (abandon !== undefined) abandon();
    else if (stream !== undefined) EtcdWatch.#close(stream);
  }

  static #close(stream: WatchStream): void {
    // Cancelling makes grpc emit a CANCELLED error: keep a listener so it is not thrown.
    stream.on('error', () => undefined);
    stream.cancel();
  }
}
