import type { Subject } from 'rxjs';
import { decodeWorkerSharing } from '../../../codec/decodeWorker.js';
import { errorMessage } from '../../../discovery/errorMessage.js';
import type { DiscoverySink } from '../../../discovery/DiscoverySink.js';
import type { DiscoveryDiagnostic } from '../../../discovery/types.js';
import { discoveryEvent } from '../../../events/discoveryEvent.js';
import { workerChange } from '../../../events/workerChange.js';
import type { DropReason } from '../../../events/types.js';
import type { WorkerInfo } from '../../../model/types.js';
import type { BlockHandle, BlockReader } from './BlockReader.js';
import { LENGTH_PREFIX } from './blockFile.js';
import { recordDigest, type RecordDigest } from './recordDigest.js';

/**
 * What one subscriber knows of one uid found in the slot table or the journal, in one object: its
 * block as the {@link BlockReader} knows it (the {@link BlockHandle} fields, which only the reader
 * changes), and what {@link WorkerBlocks} took from it (the fields below, which only it changes).
 * @internal
 */
export interface WorkerEntry extends BlockHandle, RecordDigest {
  /**
   * The last stable record taken (length prefix included) is known by its
   * length and digest ({@link RecordDigest}), not kept: a subscriber holds
   * every worker of the namespace.
   */
  taken: number;
  digestA: number;
  digestB: number;
  /**
   * The pid the worker's liveness follows, from its block's registrant
   * mark: > 0 that pid, 0 none (its record's pid), -1 not known (the record
   * came from the journal and its pid changed: the block is read when needed).
   */
  registrant: number;
  /**
   * What the subscriber was told of this worker — the metadata last
   * reported, kept until it is dropped even while its block cannot be read
   * — or `undefined` if it was told nothing yet: the subscriber's ledger,
   * held in the entries (see {@link WorkerBlocks}).
   */
  told: WorkerInfo | undefined;
  /**
   * The scan that last read its block, by its subscriber's count (0:
   * none): the sweep of that scan skips it. A mark, not a set of the entries
   * read: a subscriber's first scan reads every block.
   */
  readIn: number;
}

/**
 * What a subscriber notes of an entry whose block or record could not be
 * taken: kept apart from the entries, which are one per worker, where few
 * ever have any.
 */
interface Trouble {
  /** The record taken did not decode to a valid worker of its uid. */
  undecodable: boolean;
  /** Bytes last reported as malformed, not to report them twice. */
  reported: Buffer | undefined;
  /** The block was last found missing or empty (reported if it still is at the next read). */
  strike: Buffer | undefined;
}

/**
 * The workers a subscriber was told of, by uid (what a `WorkerLedger` holds,
 * read-only): {@link WorkerBlocks.told}.
 * @internal
 */
export interface ToldWorkers {
  /** How many. */
  readonly size: number;
  /** @returns The metadata last reported for `uid`, or `undefined` if unknown. */
  get(uid: string): WorkerInfo | undefined;
  /**
   * Calls `visit` with each, in the order their uids were found (a walk
   * that allocates no iterator results).
   */
  forEach(visit: (worker: WorkerInfo) => void): void;
}

/**
 * {@link WorkerBlocks.told}: a view of the entries. A class, not an object
 * literal with a getter: such a literal gets a hidden class of its own,
 * allocated where scavenges do not collect, whose getter would keep the
 * whole closed subscription alive until the next full collection.
 */
class ToldView implements ToldWorkers {
  /** How many entries hold a worker told (kept by {@link WorkerBlocks}). */
  size = 0;
  readonly #entries: ReadonlyMap<string, WorkerEntry>;

  constructor(entries: ReadonlyMap<string, WorkerEntry>) {
    this.#entries = entries;
  }

  get(uid: string): WorkerInfo | undefined {
    return this.#entries.get(uid)?.told;
  }

  forEach(visit: (worker: WorkerInfo) => void): void {
    this.#entries.forEach((entry) => {
      if (entry.told !== undefined) visit(entry.told);
    });
  }
}

/**
 * How many distinct versions and tags (and, apart, tag lists) a subscriber
 * shares among its workers (see {@link WorkerBlocks}).
 */
const SHARED_STRINGS = 1024;

/**
 * The workers one local subscriber knows, by uid: an entry per uid found in
 * the slot table (its block's state: descriptor, the last record taken as
 * its length and digest) and what the subscriber was told of it
 * ({@link WorkerEntry.told}). That is the subscriber's ledger, kept in the
 * entries rather than in a `WorkerLedger` of its own (a map by uid of every
 * worker, a second one), and ruled the same way: {@link workerChange}
 * decides which event, if any, new metadata is; a drop is reported when
 * the subscriber was told of the worker, with the metadata last reported.
 * Record bytes come from a journal record or a block read; they are
 * decoded only when they differ from the last taken. A block that cannot be taken yet
 * (missing, torn, malformed, newer than the journal applied) stays
 * *pending*, to be read again.
 * @internal
 */
export class WorkerBlocks {
  /** What the subscriber was told: the workers of the entries' {@link WorkerEntry.told}. */
  readonly told: ToldWorkers;
  readonly #told: ToldView;
  readonly #namespace: string;
  readonly #reader: BlockReader;
  readonly #journal: { moved(): boolean };
  readonly #schedule: () => void;
  readonly #sink: Pick<DiscoverySink, 'next' | 'closed'>;
  readonly #diagnostics: Subject<DiscoveryDiagnostic>;
  readonly #entries = new Map<string, WorkerEntry>();
  /** Scratch words of {@link recordDigest} (each digest is used before the next is computed). */
  readonly #digest = new Int32Array(4);
  #pending = new Set<WorkerEntry>();
  /** The entries with a {@link Trouble}. */
  readonly #troubles = new Map<WorkerEntry, Trouble>();
  /**
   * Versions and tags, one string each for every worker that carries it: a
   * pool's workers mostly carry the same few, and a subscriber holds every
   * worker it knows. Bounded: past the bound, new ones are not shared.
   */
  readonly #shared = new Map<string, string>();
  readonly #share = (value: string): string => {
    const held = this.#shared.get(value);
    if (held !== undefined) return held;
    if (this.#shared.size < SHARED_STRINGS) this.#shared.set(value, value);
    return value;
  };
  /**
   * Tag lists (frozen, each tag shared), one array for every worker that
   * carries the same tags: one-tag lists by their tag, longer ones by their
   * JSON text. Bounded like the strings.
   */
  readonly #oneTag = new Map<string, string[]>();
  readonly #tagLists = new Map<string, string[]>();
  readonly #shareTags = (tags: string[]): string[] => {
    const lists = tags.length === 1 ? this.#oneTag : this.#tagLists;
    const key = tags.length === 1 ? (tags[0] as string) : JSON.stringify(tags);
    const held = lists.get(key);
    if (held !== undefined) return held;
    if (this.#oneTag.size + this.#tagLists.size < SHARED_STRINGS) lists.set(key, tags);
    return tags;
  };

  /**
   * @param namespace The namespace (for diagnostics).
   * @param reader Reads the blocks.
   * @param journal Tells whether journal records were appended since the last applied.
   * @param schedule Asks for another scan (a block was newer than the journal applied).
   * @param sink Receives the events.
   * @param diagnostics Where malformed blocks are reported.
   */
  constructor(
    namespace: string,
    reader: BlockReader,
    journal: { moved(): boolean },
    schedule: () => void,
    sink: Pick<DiscoverySink, 'next' | 'closed'>,
    diagnostics: Subject<DiscoveryDiagnostic>,
  ) {
    this.#namespace = namespace;
    this.#reader = reader;
    this.#journal = journal;
    this.#schedule = schedule;
    this.#sink = sink;
    this.#diagnostics = diagnostics;
    this.#told = new ToldView(this.#entries);
    this.told = this.#told;
  }

  /**
   * @returns Its entry, if the uid is known.
   */
  get(uid: string): WorkerEntry | undefined {
    return this.#entries.get(uid);
  }

  /** @returns Every entry, in the order the uids were found. */
  values(): IterableIterator<WorkerEntry> {
    return this.#entries.values();
  }

  /** @returns Every known uid. */
  uids(): IterableIterator<string> {
    return this.#entries.keys();
  }

  /** How many uids are known. */
  get size(): number {
    return this.#entries.size;
  }

  /**
   * A new entry for a uid found in the slot table or the journal.
   * @returns The entry.
   */
  add(uid: string): WorkerEntry {
    const entry: WorkerEntry = {
      uid,
      fd: undefined,
      size: 0,
      taken: 0,
      digestA: 0,
      digestB: 0,
      registrant: -1,
      told: undefined,
      readIn: 0,
    };
    this.#entries.set(uid, entry);
    return entry;
  }

  /**
   * Forgets a uid that left the slot table; reports `worker-dropped` if the
   * subscriber was told about it.
   * @param entry Its entry.
   * @param reason Why, when the journal said.
   */
  drop(entry: WorkerEntry, reason?: DropReason): void {
    this.#reader.close(entry);
    this.#entries.delete(entry.uid);
    this.#pending.delete(entry);
    this.#troubles.delete(entry);
    const told = entry.told;
    if (told === undefined) return;
    entry.told = undefined;
    this.#told.size -= 1;
    if (!this.#sink.closed) this.#sink.next(discoveryEvent('worker-dropped', told, reason));
  }

  /** @returns The pending entries; the set starts empty again. */
  takePending(): Set<WorkerEntry> {
    const pending = this.#pending;
    this.#pending = new Set();
    return pending;
  }

  /** How many entries are pending. */
  get pendingCount(): number {
    return this.#pending.size;
  }

  /**
   * Compares one block with the record last taken (one read and its digest
   * when unchanged); takes it when it changed, unless the journal moved meanwhile.
   */
  recheck(entry: WorkerEntry): void {
    if (!this.#reader.unchanged(entry, this.#ok(entry) ? entry : undefined)) this.refresh(entry, true);
  }

  /**
   * Reads one block; takes its record if it can.
   * @param guard Take changed bytes only if the journal has not moved (else
   * retry after applying it).
   */
  refresh(entry: WorkerEntry, guard = false): void {
    const read = this.#reader.read(entry);
    switch (read.kind) {
      case 'record':
        break;
      case 'missing':
      case 'empty': {
        // Normal for an instant (a block being created or removed),
        // corruption when it lasts: reported the second time in a row, once
        // per state.
        this.#pending.add(entry);
        const seen = Buffer.from(read.kind);
        const trouble = this.#trouble(entry);
        if (trouble.strike?.equals(seen) === true) {
          const why =
            read.kind === 'missing'
              ? 'a slot holds this uid but there is no block (removed, or garbage in the slot)'
              : 'the block is empty (truncated)';
          this.#malformed(entry, seen, why);
        }
        trouble.strike = seen;
        return;
      }
      default:
        this.#pending.add(entry);
        this.#heal(entry, 'read');
        if (read.kind === 'bad-length') {
          const why =
            `its length prefix exceeds the ${read.length}-byte block (it claims ${read.claimed} bytes: truncated or ` +
            `corrupt)`;
          this.#malformed(entry, read.prefix, why);
        } else if (read.kind === 'too-large') {
          const limit = this.#reader.maxBlock;
          const why = `the block is ${read.size} bytes, more than the ${limit} bytes read at most; not read`;
          this.#malformed(entry, Buffer.from(`too-large:${read.size}`), why);
        } else if (read.kind === 'unsafe') {
          this.#malformed(entry, Buffer.from(`unsafe:${read.error.message}`), read.error.message, read.error);
        }
        return;
    }
    this.#heal(entry, 'read');
    if (guard && !this.#isTaken(entry, read.record) && this.#journal.moved()) {
      this.#pending.add(entry);
      this.#schedule();
      return;
    }
    this.accept(entry, read.record, read.registrant);
  }

  /**
   * The pid a worker's liveness follows when its block names one (its
   * registrant mark); 0 when it follows the pid of its record. Not known
   * (a record from the journal changed its pid): its block is read now.
   * @returns The marked pid, or 0.
   */
  registrant(uid: string): number {
    const entry = this.#entries.get(uid);
    if (entry === undefined) return 0;
    if (entry.registrant < 0) {
      const read = this.#reader.read(entry);
      if (read.kind === 'record') entry.registrant = read.registrant;
    }
    return Math.max(entry.registrant, 0);
  }

  /**
   * Takes new record bytes (length prefix included) for a worker: decodes
   * them if they changed, and reports what {@link workerChange} says changed.
   * @param record The bytes.
   * @param registrant The pid of the block's registrant mark (0: none), when
   * the bytes were read from the block; without it (a journal record) a new
   * worker follows its record's pid (its registrant just wrote it), and a
   * known one keeps its mark unless the record's pid changed (then it is
   * not known until needed).
   */
  accept(entry: WorkerEntry, record: Buffer, registrant?: number): void {
    if (registrant !== undefined) entry.registrant = registrant;
    if (this.#isTaken(entry, record)) {
      if (!this.#ok(entry)) this.#pending.add(entry);
      return;
    }
    entry.taken = record.length;
    entry.digestA = this.#digest[0] ?? 0;
    entry.digestB = this.#digest[1] ?? 0;
    let worker: WorkerInfo;
    try {
      worker = decodeWorkerSharing(record.subarray(LENGTH_PREFIX), entry.uid, this.#share, this.#shareTags);
    } catch (error) {
      this.#pending.add(entry);
      this.#trouble(entry).undecodable = true;
      this.#malformed(entry, record, errorMessage(error), error);
      return;
    }
    if (worker.uid !== entry.uid) {
      this.#pending.add(entry);
      this.#trouble(entry).undecodable = true;
      this.#malformed(entry, record, `it holds worker ${worker.uid}`);
      return;
    }
    this.#heal(entry, 'taken');
    if (registrant === undefined) {
      const previous = entry.told;
      if (previous === undefined) entry.registrant = 0;
      else if (previous.pid !== worker.pid) entry.registrant = -1;
    }
    const type = workerChange(entry.told, worker);
    if (type === undefined) return;
    if (entry.told === undefined) this.#told.size += 1;
    entry.told = worker;
    if (!this.#sink.closed) this.#sink.next(discoveryEvent(type, worker));
  }

  /**
   * Whether `record` is the record last taken: the same length and digest.
   * Leaves its digest in the scratch words.
   */
  #isTaken(entry: WorkerEntry, record: Buffer): boolean {
    const digest = this.#digest;
    recordDigest(record, record.length, digest);
    return (
      entry.taken !== 0 && entry.taken === record.length && entry.digestA === digest[0] && entry.digestB === digest[1]
    );
  }

  /** Closes every block descriptor and forgets every entry. */
  close(): void {
    for (const entry of this.#entries.values()) this.#reader.close(entry);
    this.#entries.clear();
    this.#told.size = 0;
    this.#pending.clear();
    this.#troubles.clear();
  }

  /** Whether the entry's record taken decoded to a valid worker of its uid (none taken: no). */
  #ok(entry: WorkerEntry): boolean {
    return entry.taken !== 0 && (this.#troubles.size === 0 || this.#troubles.get(entry)?.undecodable !== true);
  }

  /** @returns The entry's trouble, noted now if it had none. */
  #trouble(entry: WorkerEntry): Trouble {
    let trouble = this.#troubles.get(entry);
    if (trouble === undefined) {
      trouble = { undecodable: false, reported: undefined, strike: undefined };
      this.#troubles.set(entry, trouble);
    }
    return trouble;
  }

  /**
   * Forgets what no longer holds of an entry's trouble: `read`, its block
   * was read (a strike); `taken`, its record was taken and decoded (that it
   * did not, and what was reported).
   */
  #heal(entry: WorkerEntry, what: 'read' | 'taken'): void {
    if (this.#troubles.size === 0) return;
    const trouble = this.#troubles.get(entry);
    if (trouble === undefined) return;
    if (what === 'read') trouble.strike = undefined;
    else {
      trouble.undecodable = false;
      trouble.reported = undefined;
    }
    if (!trouble.undecodable && trouble.reported === undefined && trouble.strike === undefined) {
      this.#troubles.delete(entry);
    }
  }

  #malformed(entry: WorkerEntry, bytes: Buffer, why: string, error?: unknown): void {
    const trouble = this.#trouble(entry);
    if (trouble.reported?.equals(bytes) === true) return;
    trouble.reported = Buffer.from(bytes);
    this.#diagnostics.next({
      kind: 'malformed-record',
      namespace: this.#namespace,
      uid: entry.uid,
      message:
        `Skipped the block of worker ${entry.uid} (${this.#reader.path(entry)}): ${why}; retrying on the next ` +
        `scan`,
      ...(error === undefined ? {} : { error }),
    });
  }
}

/** Blocks re-read per fallback poll tick (round-robin), so a tick stays short at any size. */
export const POLL_BLOCKS = 64;
/** Blocks compared per turn of the event loop while sweeping, so that woolrx events are never held behind a sweep. */
export const SWEEP_SLICE = 4;

/**
 * The blocks a local subscriber still has to compare with the record last
 * taken, a slice per turn of the event loop (each turn after applying the
 * journal, so woolrx events are never held behind a sweep): after a wool
 * notification, all of them ({@link BlockSweep.all}); on a poll tick, a
 * round-robin slice ({@link BlockSweep.poll}).
 * @internal
 */
export class BlockSweep<Entry = WorkerEntry> {
  #queue: Entry[] = [];
  #at = 0;
  /** Where the poll's round-robin is: the next position it looks at. */
  #position = 0;
  readonly #slice: number;
  readonly #pollBlocks: number;

  /**
   * @param slice Blocks compared per {@link BlockSweep.next} call.
   * @param pollBlocks Blocks queued per poll tick.
   */
  constructor(slice = SWEEP_SLICE, pollBlocks = POLL_BLOCKS) {
    this.#slice = slice;
    this.#pollBlocks = pollBlocks;
  }

  /** How many queued blocks are left to compare. */
  get remaining(): number {
    return this.#queue.length - this.#at;
  }

  /**
   * Queues every block (replacing what was queued).
   * @param entries Every known entry.
   * @param skip Whether an entry was just read: not to compare again.
   */
  all(entries: Iterable<Entry>, skip: (entry: Entry) => boolean): void {
    this.#queue = [];
    this.#at = 0;
    for (const entry of entries) if (!skip(entry)) this.#queue.push(entry);
  }

  /**
   * Queues the next round-robin slice of blocks (after what is queued): the
   * entries found at the next positions of a positional collection (the
   * slot table's slots), until `pollBlocks` are found or every position was
   * looked at once. The round's place is a number kept from tick to tick,
   * so a tick costs its slice and keeps nothing of the collection between
   * ticks (an iterator kept over a `Map` would keep the map's obsolete
   * tables alive after it grows, until its next step). An entry at two
   * positions (a uid in two slots) is queued for each.
   * @param at The entry at a position, or `undefined` (none there).
   * @param span How many positions there are.
   * @param skip Whether an entry was just read: not to compare again.
   */
  poll(at: (position: number) => Entry | undefined, span: number, skip: (entry: Entry) => boolean): void {
    let position = this.#position < span ? this.#position : 0;
    for (let looked = 0, taken = 0; looked < span && taken < this.#pollBlocks; looked += 1) {
      const entry = at(position);
      position = position + 1 === span ? 0 : position + 1;
      if (entry === undefined) continue;
      taken += 1;
      if (!skip(entry)) this.#queue.push(entry);
    }
    this.#position = position;
  }

  /**
   * Compares the next slice.
   * @param current Whether an entry is still the one known for its uid (a
   * dropped or re-found uid is skipped, not counted).
   * @param compare Compares one block; returns `false` to stop (the
   * subscriber left).
   * @returns `true` when blocks are left for another turn.
   */
  next(current: (entry: Entry) => boolean, compare: (entry: Entry) => boolean): boolean {
    let compared = 0;
    while (this.#at < this.#queue.length && compared < this.#slice) {
      const entry = this.#queue[this.#at];
      this.#at += 1;
      if (entry === undefined || !current(entry)) continue;
      compared += 1;
      if (!compare(entry)) return false;
    }
    if (this.#at < this.#queue.length) return true;
    this.clear();
    return false;
  }

  /** Forgets what is queued. */
  clear(): void {
    this.#queue = [];
    this.#at = 0;
  }
}
